/**
 * Whether a pi session holds anything of this package: a `subagent` tool call or result, or a delivered
 * `[subagent-result]` message (every usage-ledger entry belongs to such a call). The TUI draws a session's history
 * when it opens it, so the runtime (renderers, redelivery, the ledger's footer) must be loaded first exactly
 * when this is true; a session without any (every new one) can open first and load it a moment later.
 */
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.ts";
import { TOOL_NAME } from "../tool/texts.ts";

/** @param entries pi's session entries (`sessionManager.getEntries()`), all branches. */
export function holdsSubagentActivity(entries: ReadonlyArray<unknown>): boolean {
  return entries.some((raw) => {
    const entry = (raw as { type?: unknown, customType?: unknown, message?: { role?: unknown, toolName?: unknown, content?: unknown } });
    // pi stores a custom message (a delivered result) as a `custom_message` entry, on both pis.
    if (entry?.type === "custom_message") return entry.customType === RESULT_CUSTOM_TYPE_NAME;
    if (entry?.type !== "message" || !entry.message) return false;
    const { role, toolName, content } = entry.message;
    if (role === "toolResult") return toolName === TOOL_NAME;
    if (role !== "assistant" || !Array.isArray(content)) return false;
    return content.some((block) => block?.type === "toolCall" && block.name === TOOL_NAME);
  });
}
