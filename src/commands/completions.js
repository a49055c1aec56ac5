// @ts-check
/**
 * Argument completion for the task commands: after `/subagent-cancel ` (or watch, or result) pi's editor
 * offers the task ids that start with what is typed, each with its agent, status and task. Cancel and watch
 * offer this pi's running and queued tasks; result offers those and the most recent finished ones on disk.
 * The finished list is read from disk at most once every few seconds, since pi asks on every key.
 */
/** @import { AutocompleteItem } from "@mariozechner/pi-tui" */
import { formatElapsed, oneLine } from "../shared/format.js";
/** @import { TaskSnapshot } from "../tasks/registry.js" */
/** @import { TaskRecord } from "../tasks/types.ts" */
import { statusWithCause } from "./result-text.js";
/** @import { TaskSources } from "./task-lookup.js" */
import { normalizeTaskInput } from "./task-prefix.js";

/** At most this many suggestions (the newest). */
export const COMPLETIONS_MAX = 20;
/** How many finished tasks /subagent-result offers. */
export const RECENT_FINISHED_MAX = 20;
const FINISHED_CACHE_MS = 3000;
const PREVIEW_MAX = 60;
/**
 * The id part of a suggestion's label: pi shows labels in a column of about 30 characters, too narrow for a
 * whole id and an agent. 18 characters (the time part and the sequence after it) tell tasks apart; the full
 * id is what gets inserted.
 */
export const LABEL_ID_CHARS = 18;

/**
 * @typedef {object} CompletionTask
 * @property {string} taskId
 * @property {string} agent
 * @property {string} status
 * @property {string} task
 */

/**
 * @param {TaskSnapshot} task
 * @param {number} now
 * @returns {CompletionTask}
 */
export function runningCompletionTask(task, now) {
  const status = task.status === "queued" ? "queued" : `running ${formatElapsed(now - (task.startedAt ?? task.dispatchedAt))}`;
  return { taskId: task.taskId, agent: task.agent, status, task: task.task };
}

/**
 * @param {TaskRecord} record
 * @returns {CompletionTask}
 */
export function finishedCompletionTask(record) {
  return { taskId: record.taskId, agent: record.agent, status: statusWithCause(record), task: record.task };
}

/**
 * The tasks whose id starts with what is typed (each id once, in the order given), as editor suggestions.
 * @param {string} typed
 * @param {readonly CompletionTask[]} tasks
 * @returns {AutocompleteItem[] | null}
 */
export function completionItems(typed, tasks) {
  const prefix = normalizeTaskInput(typed);
  /** @type {Set<string>} */
  const seen = new Set();
  /** @type {AutocompleteItem[]} */
  const items = [];
  for (const task of tasks) {
    if (items.length >= COMPLETIONS_MAX) break;
    if (!task.taskId.startsWith(prefix) || seen.has(task.taskId)) continue;
    seen.add(task.taskId);
    items.push({
      value: task.taskId,
      label: `${task.taskId.slice(0, LABEL_ID_CHARS)}… ${task.agent}`,
      description: `${task.status} · ${oneLine(task.task, PREVIEW_MAX)}`,
    });
  }
  return items.length > 0 ? items : null;
}

/**
 * @typedef {object} TaskCompletions
 * @property {(typed: string) => AutocompleteItem[] | null} running
 * @property {(typed: string) => AutocompleteItem[] | null} runningAndRecent
 */

/**
 * @param {TaskSources} sources
 * @param {() => number} [now]
 * @returns {TaskCompletions}
 */
export function taskCompletions(sources, now = Date.now) {
  /** @type {{ at: number; tasks: CompletionTask[] } | undefined} */
  let cached;
  /** @returns {CompletionTask[]} */
  const recent = () => {
    const at = now();
    if (!cached || at - cached.at > FINISHED_CACHE_MS) {
      cached = { at, tasks: sources.recentRecords(RECENT_FINISHED_MAX).map(finishedCompletionTask) };
    }
    return cached.tasks;
  };
  const running = () => sources.running().map((task) => runningCompletionTask(task, now()));
  return {
    running: (typed) => completionItems(typed, running()),
    runningAndRecent: (typed) => completionItems(typed, [...running(), ...recent()]),
  };
}
