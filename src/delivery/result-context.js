// @ts-check
/**
 * What the model sees of `[subagent-result]` messages: each result once. A copy that entered the conversation
 * a second time (pi still held the original when it was sent again, or two paths delivered it) stays in pi's
 * session, marked `duplicate` in its details, but is left out of every model call. Pure.
 */
import { RESULT_CUSTOM_TYPE_NAME } from "./result-type.js";

/**
 * The fields of pi's AgentMessage this looks at (custom messages carry customType and details).
 * @typedef {object} ContextMessage
 * @property {string} role
 * @property {string} [customType]
 * @property {unknown} [details]
 */

/**
 * @typedef {object} ResultDetailsLike
 * @property {unknown} [taskId]
 * @property {unknown} [duplicate]
 */

/**
 * @param {ContextMessage} message
 * @returns {boolean}
 */
export function isResultMessage(message) {
  return message.role === "custom" && message.customType === RESULT_CUSTOM_TYPE_NAME;
}

/**
 * @param {ContextMessage} message
 * @returns {string | undefined}
 */
function resultTaskId(message) {
  const taskId = /** @type {ResultDetailsLike | undefined} */ (message.details)?.taskId;
  return typeof taskId === "string" ? taskId : undefined;
}

/**
 * The messages without later copies of a result; undefined when nothing had to be left out.
 * @template {ContextMessage} T
 * @param {readonly T[]} messages
 * @returns {T[] | undefined}
 */
export function withoutDuplicateResults(messages) {
  /** @type {Set<string>} */
  const seen = new Set();
  let dropped = false;
  const kept = messages.filter((message) => {
    if (!isResultMessage(message)) return true;
    const taskId = resultTaskId(message);
    const duplicate = /** @type {ResultDetailsLike | undefined} */ (message.details)?.duplicate === true || (taskId !== undefined && seen.has(taskId));
    if (taskId !== undefined) seen.add(taskId);
    if (duplicate) dropped = true;
    return !duplicate;
  });
  return dropped ? kept : undefined;
}
