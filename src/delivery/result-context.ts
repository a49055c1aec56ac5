/**
 * What the model sees of `[subagent-result]` messages: each result once. A copy that entered the conversation
 * a second time (pi still held the original when it was sent again, or two paths delivered it) stays in pi's
 * session, marked `duplicate` in its details, but is left out of every model call. A copy is the same task's same
 * envelope: a resumed task keeps its taskId, and its new run's result, another envelope, is not a copy. Pure.
 */
import { RESULT_CUSTOM_TYPE_NAME } from "./result-type.ts";

/** The fields of pi's AgentMessage this looks at (custom messages carry customType and details). */
export interface ContextMessage {
  role: string;
  customType?: string;
  content?: unknown;
  details?: unknown;
}

export interface ResultDetailsLike {
  taskId?: unknown;
  duplicate?: unknown;
}

export function isResultMessage(message: ContextMessage): boolean {
  return message.role === "custom" && message.customType === RESULT_CUSTOM_TYPE_NAME;
}

function resultTaskId(message: ContextMessage): string | undefined {
  const taskId = (message.details as ResultDetailsLike | undefined)?.taskId;
  return typeof taskId === "string" ? taskId : undefined;
}

/** The messages without later copies of a result; undefined when nothing had to be left out. */
export function withoutDuplicateResults<T extends ContextMessage>(messages: readonly T[]): T[] | undefined {
  const seen: Set<string> = new Set();
  let dropped = false;
  const kept = messages.filter((message) => {
    if (!isResultMessage(message)) return true;
    const taskId = resultTaskId(message);
    const copyKey = taskId === undefined ? undefined : `${taskId}\n${JSON.stringify(message.content ?? "")}`;
    const duplicate = (message.details as ResultDetailsLike | undefined)?.duplicate === true || (copyKey !== undefined && seen.has(copyKey));
    if (copyKey !== undefined) seen.add(copyKey);
    if (duplicate) dropped = true;
    return !duplicate;
  });
  return dropped ? kept : undefined;
}
