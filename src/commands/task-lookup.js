// @ts-check
/**
 * Where the commands find tasks: the running (and queued) ones of this pi in its background registry, and the
 * finished ones on disk (`<agent dir>/subagent-sessions/<id>/record.json`, written for synchronous and
 * background runs alike, so they survive /reload and restarts). A task folder whose `run.lock` is held by a
 * live process is still running, possibly in another pi. The lookups turn a typed id or prefix into one of
 * these, or into the reason it is none.
 */
import { isLockLive, readSessionLock } from "../run/session-lock.js";
/** @import { BackgroundTasks } from "../tasks/background-tasks.js" */
import { listRecentRecords, listTaskIds, readRecord } from "../tasks/record-store.js";
/** @import { TaskSnapshot } from "../tasks/registry.js" */
import { isTaskId } from "../tasks/task-id.js";
/** @import { TaskRecord } from "../tasks/types.ts" */
/** @import { NamedTask } from "./notices.js" */
import { resolveTaskPrefix } from "./task-prefix.js";

/**
 * What the commands read about tasks (an adapter over the registry and the disk; tests pass their own).
 * @typedef {object} TaskSources
 * @property {() => TaskSnapshot[]} running Queued and running tasks of this pi, in dispatch order.
 * @property {() => string[]} storedIds The ids of every task folder on disk, newest first.
 * @property {(taskId: string) => TaskRecord | undefined} record
 * @property {(taskId: string) => boolean} runLockHeld Whether a live process (this pi or another) holds the task's
 *   run lock.
 * @property {(limit: number) => TaskRecord[]} recentRecords The most recent finished tasks, newest first.
 */

/**
 * @param {() => BackgroundTasks | undefined} background
 * @param {() => string} agentDir
 * @returns {TaskSources}
 */
export function taskSources(background, agentDir) {
  return {
    running: () => background()?.snapshot() ?? [],
    storedIds: () => listTaskIds(agentDir()),
    record: (taskId) => readRecord(agentDir(), taskId),
    runLockHeld: (taskId) => runLockHeld(agentDir(), taskId),
    recentRecords: (limit) =>
      listRecentRecords(agentDir(), limit).sort((a, b) => b.finishedAt - a.finishedAt),
  };
}

/**
 * Held by a live owner or child, proven by pid and start time (a reused pid does not count).
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {boolean}
 */
function runLockHeld(agentDir, taskId) {
  if (!isTaskId(taskId)) return false;
  const content = readSessionLock(agentDir, taskId);
  return content !== undefined && isLockLive(content);
}

/**
 * The outcomes every lookup shares: nothing typed, or a prefix that names no single task.
 * @typedef {{ kind: "empty" }
 *   | { kind: "too-short"; prefix: string }
 *   | { kind: "unknown"; prefix: string }
 *   | { kind: "ambiguous"; prefix: string; matches: NamedTask[] }} PrefixProblem
 */

/** How many ambiguous matches get their agent read from disk (the notice names no more than that). */
const NAMED_MATCHES_MAX = 8;

/**
 * @param {TaskSources} sources
 * @param {readonly string[]} ids
 * @param {readonly TaskSnapshot[]} running
 * @returns {NamedTask[]}
 */
function nameStored(sources, ids, running) {
  return ids.map((taskId, index) => {
    const live = running.find((task) => task.taskId === taskId);
    if (live) return { taskId, agent: live.agent };
    return { taskId, agent: index < NAMED_MATCHES_MAX ? sources.record(taskId)?.agent : undefined };
  });
}

/**
 * A task to cancel or watch: running here, or the reason it is not.
 * @typedef {PrefixProblem
 *   | { kind: "running"; task: TaskSnapshot }
 *   | { kind: "finished"; record: TaskRecord }
 *   | { kind: "elsewhere"; taskId: string }} RunningLookup
 */

/**
 * Resolves against this pi's running tasks first; a prefix none of them has is looked up on disk, so the
 * person learns that the task already finished (or runs in another pi) instead of "unknown".
 * @param {string} input
 * @param {TaskSources} sources
 * @returns {RunningLookup}
 */
export function lookupRunning(input, sources) {
  const running = sources.running();
  const resolved = resolveTaskPrefix(input, running);
  if (resolved.kind === "found") return { kind: "running", task: resolved.task };
  if (resolved.kind === "ambiguous") {
    return { kind: "ambiguous", prefix: resolved.prefix, matches: resolved.matches.map(({ taskId, agent }) => ({ taskId, agent })) };
  }
  if (resolved.kind !== "unknown") return resolved;
  const stored = resolveTaskPrefix(input, sources.storedIds().map((taskId) => ({ taskId })));
  if (stored.kind !== "found") return { kind: "unknown", prefix: resolved.prefix };
  const taskId = stored.task.taskId;
  if (sources.runLockHeld(taskId)) return { kind: "elsewhere", taskId };
  const record = sources.record(taskId);
  return record ? { kind: "finished", record } : { kind: "unknown", prefix: resolved.prefix };
}

/**
 * A task whose result to show.
 * @typedef {PrefixProblem
 *   | { kind: "running"; taskId: string }
 *   | { kind: "record"; record: TaskRecord }
 *   | { kind: "no-record"; taskId: string }} ResultLookup
 */

/**
 * @param {string} input
 * @param {TaskSources} sources
 * @returns {ResultLookup}
 */
export function lookupResult(input, sources) {
  const running = sources.running();
  const ids = [...running.map((task) => task.taskId), ...sources.storedIds()];
  const resolved = resolveTaskPrefix(input, ids.map((taskId) => ({ taskId })));
  switch (resolved.kind) {
    case "found": {
      const taskId = resolved.task.taskId;
      // A resumed session has the record of its earlier run while it runs again: running wins.
      if (running.some((task) => task.taskId === taskId) || sources.runLockHeld(taskId)) return { kind: "running", taskId };
      const record = sources.record(taskId);
      return record ? { kind: "record", record } : { kind: "no-record", taskId };
    }
    case "ambiguous":
      return { kind: "ambiguous", prefix: resolved.prefix, matches: nameStored(sources, resolved.matches.map((m) => m.taskId), running) };
    default:
      return resolved;
  }
}
