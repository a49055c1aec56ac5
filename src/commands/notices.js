// @ts-check
/**
 * Every one-line notice of /subagent-cancel, /subagent-cancel-all, /subagent-result and /subagent-watch. The
 * spec's strings (cancel-all counts, a running task, an unknown id, a task with no output) are reproduced to
 * the letter; the others are ours. Pure text, so the notices are tested without pi.
 */
/** @import { AppMode } from "../shared/mode.js" */
import { idForMessage } from "../tasks/task-id.js";
import { MIN_PREFIX_LENGTH } from "./task-prefix.js";
import { CANCEL_ALL_COMMAND, CANCEL_COMMAND, RESULT_COMMAND, WATCH_COMMAND } from "./descriptions.js";

/**
 * A task as the notices name it.
 * @typedef {object} NamedTask
 * @property {string} taskId
 * @property {string} [agent]
 */

/** How many tasks an ambiguous-prefix notice names before it says how many more there are. */
const LISTED_MAX = 8;

/**
 * @param {NamedTask} task
 * @returns {string}
 */
function named(task) {
  return task.agent ? `${task.taskId} (${task.agent})` : task.taskId;
}

/**
 * @param {readonly NamedTask[]} tasks
 * @returns {string}
 */
function listed(tasks) {
  const shown = tasks.slice(0, LISTED_MAX).map(named).join(", ");
  const more = tasks.length - LISTED_MAX;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

// --- the spec's strings ---

/**
 * @param {number} count
 * @returns {string}
 */
export function cancelledCount(count) {
  return `Cancelled ${count} running subagent task(s).`;
}

export const NOTHING_TO_CANCEL = "No running subagent tasks to cancel.";

export const RESULT_STILL_RUNNING = "Task still running — view it after it finishes";

/**
 * @param {string} taskId
 * @returns {string}
 */
export function noTaskRecord(taskId) {
  return `No task record for: ${idForMessage(taskId)}`;
}

/**
 * @param {string} sessionFile
 * @returns {string}
 */
export function noFinalOutput(sessionFile) {
  return `Task has no final output (session file: ${sessionFile})`;
}

// --- ids and prefixes ---

/**
 * @param {string} prefix
 * @returns {string}
 */
export function prefixTooShort(prefix) {
  return `Task id "${idForMessage(prefix)}" is too short: type at least ${MIN_PREFIX_LENGTH} characters of the taskId.`;
}

/**
 * @param {string} prefix
 * @param {readonly NamedTask[]} matches
 * @returns {string}
 */
export function prefixAmbiguous(prefix, matches) {
  return `"${prefix}" matches ${matches.length} tasks: ${listed(matches)}. Type more of the taskId.`;
}

/**
 * For cancel and watch: nothing running here has that id; names what does run, if anything.
 * @param {string} prefix
 * @param {string} command
 * @param {readonly NamedTask[]} [running]
 * @returns {string}
 */
export function noRunningTaskMatches(prefix, command, running = []) {
  const base = `No running subagent task matches: ${idForMessage(prefix)}`;
  return running.length === 0 ? base : `${base}. ${runningTasksList(command, running)}`;
}

/**
 * The running tasks, for a command given no id where no picker can be shown.
 * @param {string} command
 * @param {readonly NamedTask[]} running
 * @returns {string}
 */
export function runningTasksList(command, running) {
  return `Running subagent tasks: ${listed(running)}. Use /${command} <taskId>.`;
}

/**
 * @param {string} taskId
 * @param {"cancel" | "watch" | "message"} verb
 * @returns {string}
 */
export function runsElsewhere(taskId, verb) {
  return `Task ${taskId} runs in another pi process; ${verb} it there.`;
}

/**
 * @param {string} taskId
 * @param {string} status
 * @returns {string}
 */
export function alreadyFinished(taskId, status) {
  return `Task ${taskId} already finished (${status}). Its result: /${RESULT_COMMAND} ${taskId}`;
}

// --- /subagent-cancel ---

/**
 * @param {NamedTask} task
 * @returns {string}
 */
export function cancelSent(task) {
  return `Cancelled subagent task ${named(task)}; its cancelled result goes to the main agent.`;
}

/**
 * @param {NamedTask} task
 * @returns {string}
 */
export function cancelAlreadyRequested(task) {
  return `Subagent task ${named(task)} is already being cancelled.`;
}

// --- /subagent-result ---

export const RESULT_USAGE = `Usage: /${RESULT_COMMAND} <taskId> (a unique prefix of ${MIN_PREFIX_LENGTH}+ characters is enough)`;

export const NO_FINISHED_TASKS = "No finished subagent tasks recorded yet.";

// --- /subagent-watch ---

export const NOTHING_TO_WATCH = "No running subagent tasks to watch.";

/**
 * @param {string} taskId
 * @param {string | undefined} status
 * @returns {string}
 */
export function watchEnded(taskId, status) {
  const how = status ? `Task ended (${status}).` : "Task ended.";
  return `${how} Full result: /${RESULT_COMMAND} ${taskId}`;
}

// --- outside the interactive TUI ---

/**
 * @param {AppMode} mode
 * @returns {string}
 */
function whereDelegationsRun(mode) {
  return mode === "rpc"
    ? "in rpc mode each delegation runs synchronously inside its subagent tool call (abort the call to stop it)"
    : `in ${mode} mode each delegation runs synchronously inside its subagent tool call and ends with it`;
}

/**
 * What /subagent-cancel and /subagent-cancel-all can and cannot do outside the TUI.
 * @param {string} command
 * @param {AppMode} mode
 * @returns {string}
 */
export function cancelOutsideTui(command, mode) {
  return `/${command} stops background subagent tasks, which exist only in the interactive TUI; ${whereDelegationsRun(mode)}, so there is nothing to cancel here.`;
}

/**
 * @param {AppMode} mode
 * @returns {string}
 */
export function watchOutsideTui(mode) {
  return `/${WATCH_COMMAND} is a live view of a background task and needs the interactive TUI; in ${mode} mode read a finished task with /${RESULT_COMMAND} <taskId>.`;
}

/**
 * @param {string} command
 * @param {unknown} error
 * @returns {string}
 */
export function commandFailed(command, error) {
  return `/${command} failed: ${error instanceof Error ? error.message : String(error)}`;
}
