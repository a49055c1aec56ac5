/**
 * The trace's reader: what is on disk about one delegation, gathered for `buildTrace` (trace.ts). The typed id
 * is resolved as the other commands resolve it (a task's, a batch's or a chain's, or a start or end of one);
 * each task's record and session file are read; nested children are found by their record's parent (a nested
 * child's `parentSessionId` is the task that started it: a child pi's session id is its task id) among the task
 * folders made while the delegation ran, and by the task ids its `subagent` calls returned. Read only when
 * someone traces: nothing here runs on the dispatch path.
 */
import { readRegularFileSync } from "../shared/safe-read.ts";
import { isLockLive, readSessionLock, sessionFilePath } from "../run/session-files.ts";
import { listTaskIds } from "../records/record-store.ts";
import type { TaskRecord, WorkflowRecord } from "../records/record.ts";
import { listWorkflowIds, readWorkflowRecord } from "../workflows/background-workflow.ts";
import { lookupResult, type TaskSources } from "../commands/task-lookup.ts";
import type { TaskSnapshot } from "../tasks/registry.ts";
import { isTaskId, taskIdTime } from "../shared/nesting.ts";
import { sessionSteps } from "./session-steps.ts";
import { warmIdleMs } from "../warm/warm-launch.ts";
import type { LiveTaskFacts, TaskFacts, TraceInput } from "./trace.ts";

/** A session file larger than this is not read (its steps are then left out, the task still shown). */
const SESSION_MAX_BYTES = 64 * 1024 * 1024;
/** Clocks of the pis in one tree may disagree a little: folders this much outside the window still count. */
const WINDOW_SLACK_MS = 5_000;

export interface TraceReader {
  agentDir: string;
  sources: TaskSources;
  now: () => number;
}

/** What `/subagent-trace <id>` found: the input of a trace, or why there is none. */
export type TraceLookup =
  | { kind: "found"; input: TraceInput }
  | { kind: "problem"; found: Exclude<ReturnType<typeof lookupResult>, { kind: "record" | "running" | "workflow" }> }
  | { kind: "missing"; id: string };

function liveFacts(task: TaskSnapshot): LiveTaskFacts {
  return {
    agent: task.agent,
    task: task.task,
    startedAt: task.startedAt ?? task.dispatchedAt,
    model: task.state?.model,
  };
}

function stepsOf(agentDir: string, taskId: string) {
  const read = readRegularFileSync(sessionFilePath(agentDir, taskId), SESSION_MAX_BYTES, { followLinks: false });
  return read.ok ? sessionSteps(read.text) : [];
}

/**
 * A task without a record that a live process runs (a nested child, or a task of another pi): what its
 * `run.lock` says of it, which names the task that started it too.
 */
function lockedRun(reader: TraceReader, taskId: string): { live: LiveTaskFacts; parentTaskId?: string } | undefined {
  const lock = readSessionLock(reader.agentDir, taskId);
  if (!lock || !isLockLive(lock)) return undefined;
  return {
    live: { agent: lock.agent, task: lock.task ?? "", startedAt: lock.since },
    ...(lock.parentSessionId ? { parentTaskId: lock.parentSessionId } : {}),
  };
}

function factsOf(reader: TraceReader, taskId: string, record?: TaskRecord): TaskFacts {
  const found = record ?? reader.sources.record(taskId);
  const live = reader.sources.running().find((task) => task.taskId === taskId);
  const facts: TaskFacts = { taskId, steps: stepsOf(reader.agentDir, taskId), createdAt: taskIdTime(taskId) };
  // A resumed task runs again while its earlier record is on disk: what runs wins.
  const locked = live || found ? undefined : lockedRun(reader, taskId);
  if (live) facts.live = liveFacts(live);
  else if (found) facts.record = found;
  else if (locked) facts.live = locked.live;
  const parent = found?.parentSessionId ?? locked?.parentTaskId;
  if (parent) facts.parentTaskId = parent;
  return facts;
}

/** The roots and every nested child below them. */
function gather(
  reader: TraceReader,
  id: string,
  kind: TraceInput["kind"],
  rootIds: string[],
  notRun?: string[],
): TraceInput {
  const tasks = new Map<string, TaskFacts>();
  for (const rootId of rootIds) {
    const facts = factsOf(reader, rootId);
    // A root's parent is the main session, never another root: the tree starts at the roots.
    delete facts.parentTaskId;
    tasks.set(rootId, facts);
  }
  const times = [...tasks.values()].map(
    (facts) => facts.record?.dispatchedAt ?? facts.live?.startedAt ?? taskIdTime(facts.taskId),
  );
  const ends = [...tasks.values()].map((facts) => facts.record?.finishedAt ?? reader.now());
  const from = Math.min(...times) - WINDOW_SLACK_MS;
  const to = Math.max(...ends) + WINDOW_SLACK_MS;
  // Oldest first: a nested child was made after the task that started it, so its parent is known by then.
  const candidates = listTaskIds(reader.agentDir)
    .filter((taskId) => !tasks.has(taskId) && taskIdTime(taskId) >= from && taskIdTime(taskId) <= to)
    .sort();
  const named = () =>
    new Set(
      [...tasks.values()].flatMap((facts) =>
        facts.steps.flatMap((s) => (s.kind === "tool" ? (s.childTaskIds ?? []) : [])),
      ),
    );
  for (const taskId of candidates) {
    const record = reader.sources.record(taskId);
    // A nested child that still runs has no record yet; its run.lock names its parent.
    const parent = record ? record.parentSessionId : lockedRun(reader, taskId)?.parentTaskId;
    if ((parent && tasks.has(parent)) || named().has(taskId)) {
      const facts = factsOf(reader, taskId, record);
      tasks.set(taskId, facts);
    }
  }
  return { id, kind, rootIds, tasks: [...tasks.values()], ...(notRun && notRun.length > 0 ? { notRun } : {}) };
}

function workflowInput(reader: TraceReader, workflowId: string, record?: WorkflowRecord): TraceInput | undefined {
  if (record) {
    const notRun = record.details.workflow.parts.filter((part) => part.taskId === undefined).map((part) => part.agent);
    return gather(reader, workflowId, record.kind, record.partIds.filter(isTaskId), notRun);
  }
  const parts = reader.sources.running().filter((task) => task.workflow?.id === workflowId);
  const kind = parts[0]?.workflow?.kind;
  if (!kind) return undefined;
  // A running workflow's finished parts have records naming it; its running ones are in the registry. A part served
  // by a warm child (src/warm/warm-pool.ts) has the id chosen when that child was started ahead, up to its idle time
  // before the workflow.
  const since = taskIdTime(workflowId) - WINDOW_SLACK_MS - warmIdleMs(process.env);
  const finished = reader.sources
    .storedIds()
    .filter((taskId) => taskIdTime(taskId) >= since)
    .map((taskId) => reader.sources.record(taskId))
    .filter((found): found is TaskRecord => found?.workflow?.id === workflowId)
    .map((found) => found.taskId);
  const ids = [...new Set([...finished, ...parts.map((task) => task.taskId)])].sort();
  return gather(reader, workflowId, kind, ids);
}

/** Resolves the typed id and reads its trace's input. */
export function lookupTrace(reader: TraceReader, typed: string): TraceLookup {
  const found = lookupResult(typed, reader.sources);
  switch (found.kind) {
    case "record":
      return { kind: "found", input: gather(reader, found.record.taskId, "task", [found.record.taskId]) };
    case "running":
      return { kind: "found", input: gather(reader, found.taskId, "task", [found.taskId]) };
    case "workflow": {
      const input = workflowInput(reader, found.workflowId, found.record);
      return input ? { kind: "found", input } : { kind: "missing", id: found.workflowId };
    }
    case "no-record":
      // A task folder without a record: a run that never finished (pi killed); its session still tells.
      return { kind: "found", input: gather(reader, found.taskId, "task", [found.taskId]) };
    default:
      return { kind: "problem", found };
  }
}

/** A delegation the picker offers: a batch or chain, or a task of the main agent's that was no part of one. */
export interface RecentTrace {
  id: string;
  kind: TraceInput["kind"];
  /** `chain of 2: 2 succeeded`, or `worker succeeded`. */
  title: string;
  task: string;
  at: number;
}

/** The newest delegations on disk, newest first, at most `limit`. */
export function recentTraces(reader: TraceReader, limit: number): RecentTrace[] {
  const traces: RecentTrace[] = [];
  for (const workflowId of listWorkflowIds(reader.agentDir).slice(0, limit)) {
    const record = readWorkflowRecord(reader.agentDir, workflowId);
    // A blocking batch or chain a subagent ran is part of its parent's delegation (its parent session is a task).
    const nested = record?.parentSessionId !== undefined && reader.sources.record(record.parentSessionId) !== undefined;
    if (record && !nested)
      traces.push({
        id: workflowId,
        kind: record.kind,
        title: record.details.agent,
        task: record.details.task,
        at: record.finishedAt,
      });
  }
  for (const record of reader.sources.recentRecords(limit * 4)) {
    if (traces.length >= limit * 2) break;
    if (record.workflow || (record.origin?.depth ?? 1) > 1) continue;
    traces.push({
      id: record.taskId,
      kind: "task",
      title: `${record.agent} ${record.status}`,
      task: record.task,
      at: record.finishedAt,
    });
  }
  return traces.sort((a, b) => b.at - a.at).slice(0, limit);
}
