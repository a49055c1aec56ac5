/**
 * The roster for a turn that digests a `[subagent-result]` without it in the system prompt. pi 0.73.1 does not
 * run `before_agent_start` for turns started by a message, so after a restart or /reload a redelivered result
 * would be digested by a model that does not know which subagents exist. Then the roster block is appended to
 * the newest result message of the model call (only in what the model sees; pi's session is untouched). Pure.
 */
import { isResultMessage } from "../delivery/result-context.ts";
import type { ContextMessage } from "../delivery/result-context.ts";

/** The sentence that introduces the roster inside a result message (exact; ADVANCED.md quotes it). */
export const ROSTER_FOR_RESULT_INTRO = "(For reference while digesting this result: the subagents you can dispatch.)";

export type ContentMessage = ContextMessage & { content?: unknown };

function withBlock(content: unknown, addition: string): unknown {
  if (typeof content === "string") return `${content}\n\n${addition}`;
  if (Array.isArray(content)) return [...content, { type: "text", text: addition }];
  return content;
}

/**
 * The messages with the roster added to the newest result message, or undefined when nothing changes: the
 * system prompt has the roster already, or the call holds no result message.
 */
export function withRosterForResults<T extends ContentMessage>(messages: readonly T[], systemPrompt: string, block: string): T[] | undefined {
  if (systemPrompt.includes(block)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = (messages[i] as T);
    if (!isResultMessage(message)) continue;
    const copy = messages.slice();
    copy[i] = { ...message, content: withBlock(message.content, `${ROSTER_FOR_RESULT_INTRO}\n\n${block}`) };
    return copy;
  }
  return undefined;
}
