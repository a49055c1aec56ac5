/**
 * Runs whose pi died without recording them (kill -9, a crash, SIGINT to the TUI). Their run lock is still in
 * the task folder, naming an owner that no longer runs. At a later start in the same agent dir each such run
 * is claimed (the lock renamed, so two pi starting together never both take it), anything of it that still
 * runs is killed (its child, and every process carrying its task marker), and it is recorded as failed with
 * `its pi process ended`. Its result also goes to the outbox, so its main session hears of it when it is next open
 * in the TUI: a background run's as always, and a blocking call's too (its model saw only pi's `No result
 * provided` for the call). Each run is reported exactly once: by the pi that claimed it.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { buildEnvelope } from "./envelope.ts";
import { addToOutbox } from "./outbox.ts";
import { isIdentityAlive, type ProcessIdentity } from "../shared/proc-identity.ts";
import { killTreeNow } from "../run/processes.ts";
import {
  removeAgentPrompt,
  sessionFilePath,
  childOf,
  lockPath,
  ownerOf,
  readSessionLock,
  readWarmLockOwner,
  removeWarmFolder,
  dropWarmLock,
  warmLockPath,
  type LockContent,
} from "../run/session-files.ts";
import { signalMarkedProcesses } from "../run/parent-watchdog.ts";
import type { RunSettings } from "../shared/run-settings.ts";
import { readRecord, writeRecord } from "../records/record-store.ts";
import { indexedTaskIds, lockedTaskIds, unmarkRunning } from "../run/startup-work.ts";
import type { TaskRecord } from "../records/record.ts";

const OWNER_ENDED_MESSAGE = "its pi process ended";
const OWNER_ENDED_STOP_REASON = "owner_ended";

export interface ReapedTask {
  taskId: string;
  agent: string;
  task: string;
}

export interface SweepDeps {
  now: () => number;
  alive: (identity: ProcessIdentity) => boolean;
  /** Ends whatever of the task still runs. */
  killTask: (taskId: string, child: ProcessIdentity | undefined) => void;
  settings: RunSettings;
}

function killTaskNow(taskId: string, child: ProcessIdentity | undefined): void {
  if (child && isIdentityAlive(child)) killTreeNow(child.pid, taskId);
  signalMarkedProcesses(taskId, "SIGKILL", [process.pid]);
}

export function defaultSweepDeps(settings: RunSettings): SweepDeps {
  return { now: Date.now, alive: isIdentityAlive, killTask: killTaskNow, settings };
}

function failedRecord(agentDir: string, taskId: string, lock: LockContent, at: number): TaskRecord {
  return {
    version: 1,
    taskId,
    agent: lock.agent,
    task: lock.task ?? "",
    mode: lock.mode ?? "sync",
    status: "failed",
    exitCode: null,
    stopReason: OWNER_ENDED_STOP_REASON,
    errorMessage: OWNER_ENDED_MESSAGE,
    usage: { turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
    durationMs: Math.max(0, at - lock.since),
    dispatchedAt: lock.since,
    startedAt: lock.since,
    finishedAt: at,
    output: "",
    sessionFile: sessionFilePath(agentDir, taskId),
    cwd: lock.cwd ?? "",
    parentSessionId: lock.parentSessionId,
    delivered: false,
  };
}

/**
 * Claims, ends and records one run whose lock is in its folder, if its owning pi is gone; undefined when
 * there is nothing to report (a live owner, another pi claimed it first, or the owner recorded it already).
 */
function reapOne(agentDir: string, taskId: string, deps: SweepDeps): ReapedTask | undefined {
  const lock = readSessionLock(agentDir, taskId);
  if (!lock || deps.alive(ownerOf(lock))) return undefined;
  const file = lockPath(agentDir, taskId);
  const claimed = `${file}.reaping-${process.pid}`;
  try {
    renameSync(file, claimed);
  } catch {
    return undefined; // another pi claimed it first, or a resume took it over
  }
  try {
    deps.killTask(taskId, childOf(lock));
    const existing = readRecord(agentDir, taskId);
    // The owner recorded this run before dying (it only failed to remove the lock): nothing to report.
    if (existing && existing.finishedAt >= lock.since) return undefined;
    const at = deps.now();
    const record = failedRecord(agentDir, taskId, lock, at);
    if (record.parentSessionId) record.envelope = buildEnvelope(record, [], deps.settings);
    writeRecord(agentDir, record);
    if (record.parentSessionId) {
      addToOutbox(agentDir, { taskId, parentSessionId: record.parentSessionId, finishedAt: at });
    }
    return { taskId, agent: lock.agent, task: record.task };
  } finally {
    // The agent's body the run was started with goes with its lock (the file is there only for a run).
    try {
      removeAgentPrompt(agentDir, taskId);
    } catch {
      // left for the next clean-up; the lock below still goes
    }
    rmSync(claimed, { force: true });
  }
}

/**
 * A child started ahead of its task whose pi is gone (src/warm/warm-pool.ts): no task ran in its folder, so nothing is
 * recorded; whatever of it still runs is ended and the folder removed.
 */
function reapWarmFolders(agentDir: string, deps: SweepDeps): void {
  for (const taskId of indexedTaskIds(agentDir) ?? []) {
    if (!existsSync(warmLockPath(agentDir, taskId)) || readSessionLock(agentDir, taskId)) continue;
    const owner = readWarmLockOwner(agentDir, taskId);
    // A task ran here (a pool's claim is gone once a task takes its child), or the claim is unreadable: it is not a
    // waiting child's. A sandboxed child can write its own folder: only the claim goes, never a task's files.
    if (!owner || readRecord(agentDir, taskId)) {
      dropWarmLock(agentDir, taskId);
      continue;
    }
    if (deps.alive(owner)) continue;
    deps.killTask(taskId, undefined);
    removeWarmFolder(agentDir, taskId);
  }
}

/**
 * What is left in the running index without a lock: the runs just reaped, any whose pi was killed between
 * removing its lock and its entry, and warm children of a pi that is gone. Runs and warm children still live keep
 * theirs.
 */
function dropStaleIndexEntries(agentDir: string, deps: SweepDeps): void {
  reapWarmFolders(agentDir, deps);
  for (const taskId of indexedTaskIds(agentDir) ?? []) unmarkRunning(agentDir, taskId);
}

/** Claims, ends and records every run of `agentDir` whose owning pi is gone, at once. Returns the runs it recorded. */
export function reapOrphanedTasks(agentDir: string, deps: SweepDeps): ReapedTask[] {
  const reaped: ReapedTask[] = [];
  for (const taskId of lockedTaskIds(agentDir)) {
    const task = reapOne(agentDir, taskId, deps);
    if (task) reaped.push(task);
  }
  dropStaleIndexEntries(agentDir, deps);
  return reaped;
}

export interface SliceOptions {
  /** How long one slice may hold the event loop (default 10 ms; each run's reap is whole, so one may go over). */
  maxMs?: number;
  /** At most this many runs a slice (default: no limit but the time). */
  maxTasks?: number;
  /** Hands the event loop back between slices (default: a macrotask turn, setImmediate). */
  pause?: () => Promise<void>;
  clock?: () => number;
}

/**
 * The same clean-up in slices, for pi's start: thousands of stale locks (each a /proc scan for its marker, a
 * record and an outbox entry written) would otherwise hold pi's event loop, and the TUI with it, for seconds.
 * Each reaped run is handed to `onReaped` as soon as it is recorded, so its notice goes out with it: a pi that
 * exits half-way has reported every run it recorded, and leaves the rest, still locked, to the next start.
 */
export async function reapOrphanedTasksInSlices(
  agentDir: string,
  deps: SweepDeps,
  onReaped: (task: ReapedTask) => void,
  options: SliceOptions = {},
): Promise<void> {
  const maxMs = options.maxMs ?? 10;
  const maxTasks = options.maxTasks ?? Number.POSITIVE_INFINITY;
  const pause = options.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const clock = options.clock ?? (() => performance.now());
  const taskIds = lockedTaskIds(agentDir);
  let next = 0;
  while (next < taskIds.length) {
    const sliceStart = clock();
    let inSlice = 0;
    while (next < taskIds.length && inSlice < maxTasks && (inSlice === 0 || clock() - sliceStart < maxMs)) {
      const task = reapOne(agentDir, taskIds[next++]!, deps);
      inSlice += 1;
      if (task) onReaped(task);
    }
    if (next < taskIds.length) await pause();
  }
  dropStaleIndexEntries(agentDir, deps);
}

/** The one line the person sees for each reaped run. */
export function reapedNotice(task: ReapedTask): string {
  return `Subagent task ${task.taskId} (${task.agent}) failed: ${OWNER_ENDED_MESSAGE} while it was running.`;
}
