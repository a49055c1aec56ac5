/**
 * Where the commands find tasks: the running (and queued) ones of this pi in its background registry, and the
 * finished ones on disk (`<agent dir>/subagent-sessions/<id>/record.json`, written for synchronous and
 * background runs alike, so they survive /reload and restarts). A task folder whose `run.lock` is held by a
 * live process is still running, possibly in another pi. The lookups turn a typed id or prefix into one of
 * these, or into the reason it is none.
 */
import { isLockLive, readSessionLock } from "../run/session-files.ts";
import type { BackgroundTasks } from "../tasks/background-tasks.ts";
import { listRecentRecords, listTaskIds, readRecord } from "../records/record-store.ts";
import { listWorkflowIds, readWorkflowRecord } from "../workflows/background-workflow.ts";
import type { TaskSnapshot } from "../tasks/registry.ts";
import { isTaskId } from "../shared/nesting.ts";
import { warmIdleMs } from "../warm/warm-launch.ts";
import type { TaskRecord, WorkflowRecord } from "../records/record.ts";
import { resolveTaskPrefix, type NamedTask } from "./task-commands.ts";

/** What the commands read about tasks (an adapter over the registry and the disk; tests pass their own). */
export interface TaskSources {
  /** Queued and running tasks of this pi, in dispatch order. */
  running: () => TaskSnapshot[];
  /** The ids of every task folder on disk, newest first. */
  storedIds: () => string[];
  record: (taskId: string) => TaskRecord | undefined;
  /**
   * Whether a live process (this pi or another) holds the task's
   * run lock.
   */
  runLockHeld: (taskId: string) => boolean;
  /** The most recent finished tasks, newest first. */
  recentRecords: (limit: number) => TaskRecord[];
  /** A background batch's or chain's record (absent in fakes that do not need it). */
  workflow?: (workflowId: string) => WorkflowRecord | undefined;
  /** The ids of the batches and chains whose record is on disk (absent in fakes that do not need it). */
  storedWorkflowIds?: () => string[];
}

export function taskSources(background: () => BackgroundTasks | undefined, agentDir: () => string): TaskSources {
  return {
    running: () => background()?.snapshot() ?? [],
    storedIds: () => listTaskIds(agentDir()),
    record: (taskId) => readRecord(agentDir(), taskId),
    runLockHeld: (taskId) => runLockHeld(agentDir(), taskId),
    // A warm-served task's id is up to the warm children's idle time older than its dispatch (src/warm/).
    recentRecords: (limit) => listRecentRecords(agentDir(), limit, warmIdleMs(process.env)),
    workflow: (workflowId) => readWorkflowRecord(agentDir(), workflowId),
    storedWorkflowIds: () => listWorkflowIds(agentDir()),
  };
}

/** Held by a live owner or child, proven by pid and start time (a reused pid does not count). */
function runLockHeld(agentDir: string, taskId: string): boolean {
  if (!isTaskId(taskId)) return false;
  const content = readSessionLock(agentDir, taskId);
  return content !== undefined && isLockLive(content);
}

/** The outcomes every lookup shares: nothing typed, or a prefix that names no single task. */
type PrefixProblem =
  | { kind: "empty" }
  | { kind: "too-short"; prefix: string }
  | { kind: "unknown"; prefix: string }
  | { kind: "ambiguous"; prefix: string; matches: NamedTask[] };

/** How many ambiguous matches get their agent read from disk (the notice names no more than that). */
const NAMED_MATCHES_MAX = 8;

function nameStored(sources: TaskSources, ids: readonly string[], running: readonly TaskSnapshot[]): NamedTask[] {
  return ids.map((taskId, index) => {
    const live = running.find((task) => task.taskId === taskId);
    if (live) return { taskId, agent: live.agent };
    return { taskId, agent: index < NAMED_MATCHES_MAX ? sources.record(taskId)?.agent : undefined };
  });
}

/** A batch or chain with parts in flight here, as its parts name it. */
export interface LiveWorkflow {
  workflowId: string;
  workflowKind: "batch" | "chain";
  /** Its parts queued or running, in dispatch order. */
  parts: TaskSnapshot[];
}

/** The batches and chains the running tasks belong to, each once, in the order their first part appears. */
function liveWorkflows(running: readonly TaskSnapshot[]): LiveWorkflow[] {
  const byId: Map<string, LiveWorkflow> = new Map();
  for (const task of running) {
    if (!task.workflow) continue;
    const entry = byId.get(task.workflow.id) ?? {
      workflowId: task.workflow.id,
      workflowKind: task.workflow.kind,
      parts: [],
    };
    entry.parts.push(task);
    byId.set(task.workflow.id, entry);
  }
  return [...byId.values()];
}

/** A task to cancel or watch: running here, or the reason it is not. */
export type RunningLookup =
  | PrefixProblem
  | { kind: "running"; task: TaskSnapshot }
  | { kind: "workflow"; workflow: LiveWorkflow }
  | { kind: "finished"; record: TaskRecord }
  | { kind: "elsewhere"; taskId: string };

/**
 * Resolves against this pi's running tasks first; a prefix none of them has is looked up on disk, so the
 * person learns that the task already finished (or runs in another pi) instead of "unknown".
 */
export function lookupRunning(input: string, sources: TaskSources): RunningLookup {
  const running = sources.running();
  const workflows = liveWorkflows(running);
  // A batch's or chain's id (the widget's group line, its receipt) is looked up beside the tasks' own.
  type Candidate = { taskId: string; agent: string } & ({ task: TaskSnapshot } | { workflow: LiveWorkflow });
  const candidates: Candidate[] = [
    ...running.map((task) => ({ taskId: task.taskId, agent: task.agent, task })),
    ...workflows.map((workflow) => ({
      taskId: workflow.workflowId,
      agent: `${workflow.workflowKind} of ${workflow.parts[0]?.workflow?.total ?? workflow.parts.length}`,
      workflow,
    })),
  ];
  const resolved = resolveTaskPrefix(input, candidates);
  if (resolved.kind === "found") {
    const found = resolved.task;
    return "workflow" in found ? { kind: "workflow", workflow: found.workflow } : { kind: "running", task: found.task };
  }
  if (resolved.kind === "ambiguous") {
    return {
      kind: "ambiguous",
      prefix: resolved.prefix,
      matches: resolved.matches.map(({ taskId, agent }) => ({ taskId, agent })),
    };
  }
  if (resolved.kind !== "unknown") return resolved;
  const stored = resolveTaskPrefix(
    input,
    sources.storedIds().map((taskId) => ({ taskId })),
  );
  if (stored.kind !== "found") return { kind: "unknown", prefix: resolved.prefix };
  const taskId = stored.task.taskId;
  if (sources.runLockHeld(taskId)) return { kind: "elsewhere", taskId };
  const record = sources.record(taskId);
  return record ? { kind: "finished", record } : { kind: "unknown", prefix: resolved.prefix };
}

/** A task whose result to show. */
export type ResultLookup =
  | PrefixProblem
  | { kind: "running"; taskId: string }
  | { kind: "workflow"; workflowId: string; record?: WorkflowRecord }
  | { kind: "record"; record: TaskRecord }
  | { kind: "no-record"; taskId: string };

export function lookupResult(input: string, sources: TaskSources): ResultLookup {
  const running = sources.running();
  const ids = [...running.map((task) => task.taskId), ...sources.storedIds()];
  const workflowIds = new Set([
    ...liveWorkflows(running).map((workflow) => workflow.workflowId),
    ...(sources.storedWorkflowIds?.() ?? []),
  ]);
  const resolved = resolveTaskPrefix(
    input,
    [...ids, ...workflowIds].map((taskId) => ({ taskId })),
  );
  switch (resolved.kind) {
    case "found": {
      const taskId = resolved.task.taskId;
      // A batch or chain has no result of its own: the caller names its parts' (or says it still runs).
      if (workflowIds.has(taskId) && !ids.includes(taskId))
        return { kind: "workflow", workflowId: taskId, record: sources.workflow?.(taskId) };
      // A resumed session has the record of its earlier run while it runs again: running wins.
      if (running.some((task) => task.taskId === taskId) || sources.runLockHeld(taskId))
        return { kind: "running", taskId };
      const record = sources.record(taskId);
      return record ? { kind: "record", record } : { kind: "no-record", taskId };
    }
    case "ambiguous":
      return {
        kind: "ambiguous",
        prefix: resolved.prefix,
        matches: nameStored(
          sources,
          resolved.matches.map((m) => m.taskId),
          running,
        ),
      };
    default:
      return resolved;
  }
}
