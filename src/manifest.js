// @ts-check
/**
 * What pi sees of the extension at start, before the runtime (src/runtime.ts) is loaded: the `subagent` tool's
 * definition, the commands' names and descriptions, the events the runtime listens to and its message
 * renderer. Only texts and constants are imported here, so loading this costs next to nothing. The tool's
 * parameter schema is built with TypeBox, which this module (loaded by Node itself) cannot import: the entry
 * passes it in (src/tool/schema.ts).
 */
import { detectAppMode } from "./shared/mode.js";
import {
  CANCEL_ALL_COMMAND,
  CANCEL_ALL_DESCRIPTION,
  CANCEL_COMMAND,
  CANCEL_DESCRIPTION,
  CONFIG_COMMAND,
  CONFIG_DESCRIPTION,
  MESSAGE_COMMAND,
  MESSAGE_DESCRIPTION,
  RESULT_COMMAND,
  RESULT_DESCRIPTION,
  USAGE_COMMAND,
  USAGE_DESCRIPTION,
  WATCH_COMMAND,
  WATCH_DESCRIPTION,
  WORKTREES_COMMAND,
  WORKTREES_DESCRIPTION,
} from "./commands/descriptions.js";
import { SUBAGENT_TOOL_TEXTS } from "./tool/texts.js";
import { RESULT_CUSTOM_TYPE_NAME } from "./delivery/result-type.js";
import { holdsSubagentActivity } from "./shared/session-activity.js";

/**
 * The manifest, with the `subagent` tool's parameter schema.
 * @param {import("./lazy/lazy-extension.js").LazyManifest["tools"][number]["parameters"]} toolParameters
 * @returns {import("./lazy/lazy-extension.js").LazyManifest}
 */
export function subagentManifest(toolParameters) {
  return {
    tools: [
      {
        ...SUBAGENT_TOOL_TEXTS,
        parameters: toolParameters,
      },
    ],
    commands: [
      { name: CONFIG_COMMAND, description: CONFIG_DESCRIPTION },
      { name: CANCEL_COMMAND, description: CANCEL_DESCRIPTION },
      { name: CANCEL_ALL_COMMAND, description: CANCEL_ALL_DESCRIPTION },
      { name: MESSAGE_COMMAND, description: MESSAGE_DESCRIPTION },
      { name: RESULT_COMMAND, description: RESULT_DESCRIPTION },
      { name: WATCH_COMMAND, description: WATCH_DESCRIPTION },
      { name: USAGE_COMMAND, description: USAGE_DESCRIPTION },
      { name: WORKTREES_COMMAND, description: WORKTREES_DESCRIPTION },
    ],
    events: ["session_start", "agent_start", "agent_end", "agent_settled", "message_start", "message_end", "context", "session_shutdown", "tool_result"],
    // The TUI needs the runtime from the start (progress widget, redelivery of undelivered results, renderers), and
    // before a session's history is drawn when it holds subagent calls; a session without any opens first.
    loadOn: { session_start: (_event, ctx) => (detectAppMode() !== "interactive" ? undefined : tuiLoadTiming(ctx)) },
    replayOnLoad: ["session_start"],
    messageRenderers: [RESULT_CUSTOM_TYPE_NAME],
  };
}

/**
 * When the TUI loads the runtime at a session's start: at once when the session holds subagent calls (its history
 * is drawn with the runtime's renderers, undelivered results go out, the footer shows the usage), else right after
 * pi's start-up, so a new session opens without waiting for it. Unknown: at once, as before.
 * @param {{ sessionManager?: { getEntries(): ReadonlyArray<unknown> } } | undefined} ctx
 * @returns {import("./lazy/lazy-extension.js").LoadTiming}
 */
export function tuiLoadTiming(ctx) {
  try {
    const entries = ctx?.sessionManager?.getEntries();
    return entries && !holdsSubagentActivity(entries) ? "soon" : "now";
  } catch {
    return "now";
  }
}
