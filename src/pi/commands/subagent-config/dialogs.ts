/**
 * The flow's dialogs on top of pi's `ctx.ui`, one adapter per mode that has a UI:
 * - interactive TUI: pi's select and confirm, the prefilled input (`ctx.ui.custom` + pi-tui `Input`), and the
 *   body in the external editor with the TUI stopped around it;
 * - RPC: every dialog goes to the client as an `extension_ui_request`. `custom` does not exist there, so a
 *   prefilled value travels as the `editor` request's prefill, and the body is edited the same way.
 */
import type { ExtensionUIContext } from "@mariozechner/pi-coding-agent";
import { showPrefilledInput } from "../../ui/prefilled-input.ts";
import { runEditorOnText, runEditorOutsideTui } from "../../../commands/subagent-config/external-editor.ts";
import type { BodyEditOutcome, ConfigDialogs } from "../../../commands/subagent-config/config-types.ts";

type DialogUI = Pick<ExtensionUIContext, "select" | "confirm" | "custom" | "editor" | "notify">;

function commonDialogs(ui: DialogUI): Pick<ConfigDialogs, "select" | "confirm" | "notify"> {
  return {
    select: (title, options) => ui.select(title, [...options]),
    confirm: (title, message) => ui.confirm(title, message),
    notify: (message, level) => ui.notify(message, level),
  };
}

/** Opens the external editor from inside pi's TUI, as pi does for its own Ctrl+G. */
export function editBodyInTui(ui: Pick<ExtensionUIContext, "custom">, agentName: string, body: string, env: NodeJS.ProcessEnv = process.env): Promise<BodyEditOutcome> {
  return ui
    .custom<BodyEditOutcome>((tui, _theme, _keybindings, done) => {
      // The editor runs synchronously while the factory runs; the dialog is closed before it is ever shown.
      done(runEditorOutsideTui(tui, () => runEditorOnText(agentName, body, env)));
      return { render: () => [], invalidate: () => {} };
    })
    .then((outcome) => outcome ?? { kind: "cancelled" });
}

export function tuiDialogs(ui: DialogUI, env: NodeJS.ProcessEnv = process.env): ConfigDialogs {
  return {
    ...commonDialogs(ui),
    input: (title, value) => showPrefilledInput(ui, title, value),
    editBody: (agentName, body) => editBodyInTui(ui, agentName, body, env),
  };
}

export function rpcDialogs(ui: DialogUI): ConfigDialogs {
  return {
    ...commonDialogs(ui),
    input: async (title, value) => {
      const text = await ui.editor(title, value);
      // A client's editor may hand back a final line break; a single-line value never has one.
      return text === undefined ? undefined : text.replace(/[\r\n]+$/, "");
    },
    editBody: async (agentName, body) => {
      const text = await ui.editor(`${agentName}: body (the agent's system prompt)`, body);
      return text === undefined ? { kind: "cancelled" } : { kind: "edited", text };
    },
  };
}
