/**
 * Wires what the person sees to pi: the `subagent-result` card renderer, the progress widget and footer
 * segment of the background tasks, and the renderers of the tool's row (returned, for `registerSubagentTool`).
 *
 * Widgets and status need a context with a UI. It is taken from `session_start` (and again from `agent_start`,
 * which carries the same session's context) in the interactive TUI only; print and JSON mode have no UI, and
 * there no background tasks are ever created, so nothing here runs. The progress controller attaches when the
 * background tasks are created (`onCreated`), never creating them itself.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { detectAppMode } from "../../shared/mode.ts";
import { RESULT_CUSTOM_TYPE } from "../../tasks/background-tasks.ts";
import type { BackgroundHandle } from "../register-background.ts";
import type { SubagentToolRenderers } from "../tool/register-tool.ts";
import { ProgressController, type ProgressUi } from "./progress-controller.ts";
import { renderResultCard } from "./result-card.ts";
import { renderSubagentCall, renderSubagentResult } from "./tool-row.ts";

export interface UiHandle {
  /** Pass to `registerSubagentTool` as `renderers`. */
  toolRenderers: SubagentToolRenderers;
}

export function registerUi(pi: ExtensionAPI, background: BackgroundHandle): UiHandle {
  pi.registerMessageRenderer(RESULT_CUSTOM_TYPE, renderResultCard);

  let session: ExtensionContext | undefined;
  let controller: ProgressController | undefined;

  const currentUi = (): ProgressUi | undefined => {
    if (!session) return undefined;
    try {
      return session.ui;
    } catch {
      // pi replaced the session (reload, /new, ...): the next session_start brings the new context.
      session = undefined;
      return undefined;
    }
  };

  const capture = (ctx: ExtensionContext) => {
    if (!ctx.hasUI || detectAppMode() !== "interactive") return;
    session = ctx;
    controller?.refresh();
  };

  background.onCreated((tasks) => {
    controller?.dispose();
    controller = new ProgressController(tasks, currentUi);
    controller.start();
  });

  pi.on("session_start", (_event, ctx) => capture(ctx));
  pi.on("agent_start", (_event, ctx) => capture(ctx));
  pi.on("session_shutdown", () => {
    controller?.detach();
    session = undefined;
  });

  return { toolRenderers: { renderCall: renderSubagentCall, renderResult: renderSubagentResult } };
}
