/**
 * `/subagent-config`'s body: the editor run through pi's dialogs, loaded when the command first runs.
 */
import type { ExtensionUIContext, Theme, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { Container, Input, Spacer, Text, type Focusable } from "@mariozechner/pi-tui";
import {
  runEditorOnText,
  runEditorOutsideTui,
  createConfigStore,
  inheritedThinking,
  piDefaultThinking,
  type ConfigStoreOptions,
} from "../../commands/config-store.ts";
import {
  runSubagentConfigFlow,
  NON_TUI_WARNING,
  type BodyEditOutcome,
  type ConfigDialogs,
} from "../../commands/config-editor.ts";
import { WARNING_PREFIX } from "../../agents/warnings.ts";
import { currentModelRef } from "../../config/resolve.ts";
import { detectAppMode, type AppMode } from "../../shared/pi-process.ts";
import { readPiTrust } from "../tool/authority.ts";
import { agentDir } from "../../shared/this-process.ts";

/*
 * A single-line input that opens with a value ready to edit, for pi's TUI. pi's own `ctx.ui.input` has no
 * prefill (its placeholder is not shown in the TUI), so this builds the same kind of dialog from pi-tui's
 * `Input` inside `ctx.ui.custom`: Enter submits the text as it stands (unchanged if untouched), Esc cancels.
 *
 * Colours come from the theme pi passes to the factory, never from pi's module-level theme, which an
 * extension loaded through jiti may see uninitialised.
 */
/** The theme calls this dialog uses (a subset of pi's Theme, so tests can pass a plain object). */
export type InputTheme = Pick<Theme, "fg">;

/** A full-width rule in the theme's border colour. */
class Rule {
  constructor(private readonly theme: InputTheme) {}
  invalidate(): void {}
  render(width: number): string[] {
    return [this.theme.fg("border", "\u2500".repeat(Math.max(1, width)))];
  }
}

const BRACKETED_PASTE_START = "\x1b[200~";
const BRACKETED_PASTE_END = "\x1b[201~";

/**
 * Puts `value` into the input with the cursor after it. A bracketed paste is the public way to insert text
 * at the cursor; it turns tabs into spaces, so a value with a tab (or a line break) is set directly instead,
 * keeping it byte for byte (the cursor then starts at the beginning).
 */
function prefill(input: Input, value: string): void {
  if (/[\t\r\n]/.test(value)) input.setValue(value);
  else if (value !== "") input.handleInput(`${BRACKETED_PASTE_START}${value}${BRACKETED_PASTE_END}`);
}

export class PrefilledInputComponent extends Container implements Focusable {
  private readonly input = new Input();
  private isFocused = false;

  constructor(
    title: string,
    value: string,
    theme: InputTheme,
    onSubmit: (value: string) => void,
    onCancel: () => void,
  ) {
    super();
    this.input.onSubmit = onSubmit;
    this.input.onEscape = onCancel;
    prefill(this.input, value);
    this.addChild(new Rule(theme));
    this.addChild(new Spacer(1));
    this.addChild(new Text(theme.fg("accent", title), 1, 0));
    this.addChild(new Spacer(1));
    this.addChild(this.input);
    this.addChild(new Spacer(1));
    this.addChild(
      new Text(
        `${theme.fg("dim", "enter")}${theme.fg("muted", " submit")}  ${theme.fg("dim", "esc")}${theme.fg("muted", " cancel")}`,
        1,
        0,
      ),
    );
    this.addChild(new Spacer(1));
    this.addChild(new Rule(theme));
  }

  /** Focus goes to the inner input, so the hardware cursor (and an IME) sits where the text is typed. */
  get focused(): boolean {
    return this.isFocused;
  }

  set focused(value: boolean) {
    this.isFocused = value;
    this.input.focused = value;
  }

  getValue(): string {
    return this.input.getValue();
  }

  handleInput(data: string): void {
    this.input.handleInput(data);
  }
}

/** Shows the dialog; resolves the submitted text, or undefined on Esc (or where custom UI is unavailable). */
export function showPrefilledInput(
  ui: Pick<ExtensionUIContext, "custom">,
  title: string,
  value: string,
): Promise<string | undefined> {
  return ui.custom<string | undefined>(
    (_tui, theme, _keybindings, done) =>
      new PrefilledInputComponent(
        title,
        value,
        theme,
        (submitted) => done(submitted),
        () => done(undefined),
      ),
  );
}

/*
 * The flow's dialogs on top of pi's `ctx.ui`, one adapter per mode that has a UI:
 * - interactive TUI: pi's select and confirm, the prefilled input (`ctx.ui.custom` + pi-tui `Input`), and the
 *   body in the external editor with the TUI stopped around it;
 * - RPC: every dialog goes to the client as an `extension_ui_request`. `custom` does not exist there, so a
 *   prefilled value travels as the `editor` request's prefill, and the body is edited the same way.
 */
type DialogUI = Pick<ExtensionUIContext, "select" | "confirm" | "custom" | "editor" | "notify">;

function commonDialogs(ui: DialogUI): Pick<ConfigDialogs, "select" | "confirm" | "notify"> {
  return {
    select: (title, options) => ui.select(title, [...options]),
    confirm: (title, message) => ui.confirm(title, message),
    notify: (message, level) => ui.notify(message, level),
  };
}

/** Opens the external editor from inside pi's TUI, as pi does for its own Ctrl+G. */
export function editBodyInTui(
  ui: Pick<ExtensionUIContext, "custom">,
  agentName: string,
  body: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BodyEditOutcome> {
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

/*
 * The body of `/subagent-config [agent-name]`: the flow with the dialogs of the mode pi runs in, over the config
 * store. Where there is no UI (print and JSON mode) it only warns with the usage, opens no dialog and writes
 * nothing; the warning also goes to stderr, since pi drops notifications there. Imported when the command first
 * runs (src/pi/commands/commands.ts), not with the runtime: the agent-file editing it does needs the YAML library,
 * which costs every TUI session about 30 ms and 1.4 MB of heap when loaded up front.
 */
export interface SubagentConfigCommandOptions {
  /** How pi runs (default: detected from the command line). */
  appMode?: AppMode;
  /** Paths for the store (tests); cwd, the inherited model and pi's models always come from the command's context. */
  paths?: Omit<ConfigStoreOptions, "cwd" | "inheritedModel" | "inheritedThinking" | "registryModels">;
  /** Replaces the dialogs built from ctx.ui (tests). */
  dialogs?: ConfigDialogs;
  /** Where the no-UI warning is written besides ctx.ui (default: stderr). */
  writeStderr?: (text: string) => void;
}

type CommandContext = Pick<ExtensionCommandContext, "hasUI" | "ui" | "cwd" | "model"> &
  Partial<Pick<ExtensionCommandContext, "modelRegistry">>;

/** The models pi can use now (its registry's available ones), as `provider/id`; none when pi cannot say. */
function registryModels(ctx: CommandContext): string[] {
  try {
    return (ctx.modelRegistry?.getAvailable() ?? []).map((model) => `${model.provider}/${model.id}`);
  } catch {
    return [];
  }
}

export async function runSubagentConfigCommand(
  args: string,
  ctx: CommandContext,
  options: SubagentConfigCommandOptions = {},
): Promise<void> {
  if (!ctx.hasUI) {
    ctx.ui.notify(NON_TUI_WARNING, "warning");
    (options.writeStderr ?? ((text) => process.stderr.write(text)))(`${WARNING_PREFIX}${NON_TUI_WARNING}\n`);
    return;
  }
  const mode = options.appMode ?? detectAppMode();
  const dialogs = options.dialogs ?? (mode === "rpc" ? rpcDialogs(ctx.ui) : tuiDialogs(ctx.ui));
  const inheritedModel = currentModelRef(ctx.model);
  const dir = options.paths?.agentDir ?? agentDir();
  const projectTrusted = readPiTrust(ctx, process.argv, dir).kind !== "untrusted";
  const store = createConfigStore({
    ...options.paths,
    cwd: ctx.cwd,
    ...(inheritedModel !== undefined ? { inheritedModel } : {}),
    inheritedThinking: inheritedThinking(piDefaultThinking({ agentDir: dir, cwd: ctx.cwd, projectTrusted }), ctx.model),
    registryModels: registryModels(ctx),
    ...(projectTrusted ? {} : { projectTrusted: false }),
  });
  await runSubagentConfigFlow(dialogs, store, args);
}
