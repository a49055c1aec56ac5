/**
 * Every one-line notice of /subagent-cancel, /subagent-cancel-all, /subagent-result and /subagent-watch. The
 * spec's strings (cancel-all counts, a running task, an unknown id, a task with no output) are reproduced to
 * the letter; the others are ours. Pure text, so the notices are tested without pi.
 */
import type { AppMode } from "../shared/mode.ts";
import { idForMessage } from "../shared/task-id.ts";
import { MIN_PREFIX_LENGTH } from "./task-prefix.ts";
import { RESULT_COMMAND, WATCH_COMMAND } from "./descriptions.ts";

/** A task as the notices name it. */
export interface NamedTask {
  taskId: string;
  agent?: string;
}

/** How many tasks an ambiguous-prefix notice names before it says how many more there are. */
const LISTED_MAX = 8;

function named(task: NamedTask): string {
  return task.agent ? `${task.taskId} (${task.agent})` : task.taskId;
}

function listed(tasks: readonly NamedTask[]): string {
  const shown = tasks.slice(0, LISTED_MAX).map(named).join(", ");
  const more = tasks.length - LISTED_MAX;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

// --- the spec's strings ---

export function cancelledCount(count: number): string {
  return `Cancelled ${count} running subagent task(s).`;
}

export const NOTHING_TO_CANCEL = "No running subagent tasks to cancel.";

export const RESULT_STILL_RUNNING = "Task still running — view it after it finishes";

export function noTaskRecord(taskId: string): string {
  return `No task record for: ${idForMessage(taskId)}`;
}

export function noFinalOutput(sessionFile: string): string {
  return `Task has no final output (session file: ${sessionFile})`;
}

// --- ids and prefixes ---

export function prefixTooShort(prefix: string): string {
  return `Task id "${idForMessage(prefix)}" is too short: type at least ${MIN_PREFIX_LENGTH} characters of the taskId.`;
}

export function prefixAmbiguous(prefix: string, matches: readonly NamedTask[]): string {
  return `"${prefix}" matches ${matches.length} tasks: ${listed(matches)}. Type more of the taskId.`;
}

/** For cancel and watch: nothing running here has that id; names what does run, if anything. */
export function noRunningTaskMatches(prefix: string, command: string, running: readonly NamedTask[] = []): string {
  const base = `No running subagent task matches: ${idForMessage(prefix)}`;
  return running.length === 0 ? base : `${base}. ${runningTasksList(command, running)}`;
}

/** The running tasks, for a command given no id where no picker can be shown. */
export function runningTasksList(command: string, running: readonly NamedTask[]): string {
  return `Running subagent tasks: ${listed(running)}. Use /${command} <taskId>.`;
}

export function runsElsewhere(taskId: string, verb: "cancel" | "watch" | "message"): string {
  return `Task ${taskId} runs in another pi process; ${verb} it there.`;
}

export function alreadyFinished(taskId: string, status: string): string {
  return `Task ${taskId} already finished (${status}). Its result: /${RESULT_COMMAND} ${taskId}`;
}

// --- /subagent-cancel ---

/** `/subagent-result <batch id>`: a workflow has no result of its own; each part's is named. */
export function workflowResultNotice(workflowId: string, title: string, parts: ReadonlyArray<{ index: number; agent: string; status: string; taskId?: string }>): string {
  const each = parts.map((part) => (part.taskId ? `/subagent-result ${part.taskId} (${part.index}. ${part.agent} ${part.status})` : `${part.index}. ${part.agent} ${part.status}`));
  return `${workflowId} is a ${title}. Each part has its own result: ${each.join(", ")}.`;
}

/** `/subagent-cancel <batch id>`: every part in flight was cancelled; the workflow's one result follows. */
export function workflowCancelSent(kind: "batch" | "chain", workflowId: string, parts: number): string {
  return `Cancelled ${parts} ${parts === 1 ? "part" : "parts"} of ${kind} ${workflowId}; its one result goes to the main agent once every part has ended.`;
}

export function cancelSent(task: NamedTask): string {
  return `Cancelled subagent task ${named(task)}; its cancelled result goes to the main agent.`;
}

export function cancelAlreadyRequested(task: NamedTask): string {
  return `Subagent task ${named(task)} is already being cancelled.`;
}

// --- /subagent-result ---

export const RESULT_USAGE = `Usage: /${RESULT_COMMAND} <taskId> (the short id the widget shows, or any unique start or end of ${MIN_PREFIX_LENGTH}+ characters, is enough)`;

export const NO_FINISHED_TASKS = "No finished subagent tasks recorded yet.";

// --- /subagent-watch ---

export const NOTHING_TO_WATCH = "No running subagent tasks to watch.";

export function watchEnded(taskId: string, status: string | undefined): string {
  const how = status ? `Task ended (${status}).` : "Task ended.";
  return `${how} Full result: /${RESULT_COMMAND} ${taskId}`;
}

// --- outside the interactive TUI ---

function whereDelegationsRun(mode: AppMode): string {
  return mode === "rpc"
    ? "in rpc mode each delegation runs synchronously inside its subagent tool call (abort the call to stop it)"
    : `in ${mode} mode each delegation runs synchronously inside its subagent tool call and ends with it`;
}

/** What /subagent-cancel and /subagent-cancel-all can and cannot do outside the TUI. */
export function cancelOutsideTui(command: string, mode: AppMode): string {
  return `/${command} stops background subagent tasks, which exist only in the interactive TUI; ${whereDelegationsRun(mode)}, so there is nothing to cancel here.`;
}

export function watchOutsideTui(mode: AppMode): string {
  return `/${WATCH_COMMAND} is a live view of a background task and needs the interactive TUI; in ${mode} mode read a finished task with /${RESULT_COMMAND} <taskId>.`;
}

export function commandFailed(command: string, error: unknown): string {
  return `/${command} failed: ${error instanceof Error ? error.message : String(error)}`;
}
