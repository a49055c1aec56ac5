/**
 * What the TUI needs to draw a session's subagent tool rows and result cards, and nothing else: the renderers.
 * When the TUI opens a session that holds subagent calls (`pi -c`, `/resume`), pi waits for this part only, so
 * the history it draws is ours, and the rest of the runtime (src/pi/runtime.ts: background tasks, widget, commands,
 * ledger, the tool) loads right after pi's start-up (src/start/lazy-extension.ts, `LazyRuntimes.draw`). The
 * renderers are the ones src/pi/ui/progress.ts registers; a unit test checks they are the same functions.
 */
import { RESULT_CUSTOM_TYPE_NAME } from "../../delivery/result-type.ts";
import type { DrawPart } from "../../start/lazy-extension.ts";
import { TOOL_NAME } from "../../tool/texts.ts";
import { renderResultCard, renderSubagentCall, renderSubagentResult } from "./cards.ts";

export const drawPart: DrawPart = {
  toolRenderers: { [TOOL_NAME]: { renderCall: renderSubagentCall, renderResult: renderSubagentResult } },
  messageRenderers: { [RESULT_CUSTOM_TYPE_NAME]: renderResultCard },
};
