/**
 * What pi sees of the extension at start, before the runtime (src/pi/runtime.ts) is loaded: the `subagent` tool's
 * definition, the commands' names and descriptions, the events the runtime listens to and its message
 * renderer. Only texts and constants are imported here, so loading this costs next to nothing. The tool's
 * parameter schema is pi's TypeBox (src/tool/schema.ts): the entry passes it in.
 */
import { detectAppMode } from "../shared/mode.ts";
import { COMMANDS } from "../commands/descriptions.ts";
import { SUBAGENT_TOOL_TEXTS } from "../tool/texts.ts";
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.ts";
import { holdsSubagentActivity } from "./session-activity.ts";

/** The manifest, with the `subagent` tool's parameter schema. */
export function subagentManifest(toolParameters: import("./lazy-extension.ts").LazyManifest["tools"][number]["parameters"]): import("./lazy-extension.ts").LazyManifest {
  return {
    tools: [
      {
        ...SUBAGENT_TOOL_TEXTS,
        parameters: toolParameters,
      },
    ],
    commands: Object.values(COMMANDS).map(({ name, description }) => ({ name, description })),
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
 */
export function tuiLoadTiming(ctx: { sessionManager?: { getEntries(): ReadonlyArray<unknown> } } | undefined): import("./lazy-extension.ts").LoadTiming {
  try {
    const entries = ctx?.sessionManager?.getEntries();
    return entries && !holdsSubagentActivity(entries) ? "soon" : "now";
  } catch {
    return "now";
  }
}
