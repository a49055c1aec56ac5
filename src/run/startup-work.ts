/**
 * Whether the start-up sweep has anything to look at, and whether it ran: both on pi's start-up path, with nothing beyond Node's own modules.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { subagentSessionsDir, perProcess } from "../shared/this-process.ts";
import { isTaskId } from "../shared/nesting.ts";

/*
 * Whether the start-up sweep has anything to look at: a run whose lock may have outlived its pi (the agent's body a
 * run was started with lies beside its lock and goes with it). With nothing beyond Node's own modules, so a start
 * with nothing left over (nearly every start) never loads the clean-up's modules at all, and never lists the temp
 * folder (a crowded one, 10 000 entries, takes about 6 ms to list).
 *
 * Task folders are kept for good, so looking into each of them at every start would cost more the longer pi is
 * used (5000 folders: about 30 ms, at every start of the main pi). So a run that takes its lock also leaves an
 * empty file named after its task in the running index (`subagent-sessions/.running/`), and removes it after its
 * lock: the check lists that folder alone. Before the index exists (an agent dir last used by a version without
 * it), every task folder is looked at once; finding no lock there, the check starts the index.
 */
/** The run lock's file name in a task folder (src/run/session-files.ts writes it). */
export const RUN_LOCK_FILE_NAME = "run.lock";
/** A warm child's claim on its folder (src/run/session-files.ts): it keeps the folder's entry in the index too. */
export const WARM_LOCK_FILE_NAME = "warm.lock";
/** The running index's folder name in `subagent-sessions/`. */
const RUNNING_INDEX_NAME = ".running";

export function runningIndexDir(agentDir: string): string {
  return join(subagentSessionsDir(agentDir), RUNNING_INDEX_NAME);
}

function runLockPath(agentDir: string, taskId: string): string {
  return join(subagentSessionsDir(agentDir), taskId, RUN_LOCK_FILE_NAME);
}

/** The task ids in the running index, or undefined when there is no index yet. */
export function indexedTaskIds(agentDir: string): string[] | undefined {
  try {
    return readdirSync(runningIndexDir(agentDir)).filter(isTaskId);
  } catch {
    return undefined;
  }
}

/**
 * Puts a task in the running index; called once its run holds the lock. A failure is ignored: the run goes on,
 * and only a hard kill of its pi would then go unnoticed at the next start.
 */
export function markRunning(agentDir: string, taskId: string): void {
  try {
    mkdirSync(runningIndexDir(agentDir), { recursive: true, mode: 0o700 });
    // Created, never opened for writing: a link planted under that name is not followed (O_EXCL).
    closeSync(openSync(join(runningIndexDir(agentDir), taskId), "wx", 0o600));
  } catch {
    // see above
  }
}

/**
 * Takes a task out of the running index once its lock is gone; kept while a lock is there (a new run of the
 * same session may hold it already).
 */
export function unmarkRunning(agentDir: string, taskId: string): void {
  if (existsSync(runLockPath(agentDir, taskId))) return;
  if (existsSync(join(subagentSessionsDir(agentDir), taskId, WARM_LOCK_FILE_NAME))) return;
  rmSync(join(runningIndexDir(agentDir), taskId), { force: true });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    // removed since the listing, or a dangling link: not a task folder (and no reason to hide the others)
    return false;
  }
}

/**
 * The ids of every task folder (running or finished), in no order. The listing's own file types, so thousands of
 * kept task folders cost no stat each (5000: ~4 ms, not ~20); only a link is followed.
 */
export function taskFolderIds(agentDir: string): string[] {
  const dir = subagentSessionsDir(agentDir);
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter(
      (entry) =>
        isTaskId(entry.name) && (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(join(dir, entry.name)))),
    )
    .map((entry) => entry.name);
}

/**
 * Every task folder holding a run lock: one existence check a folder. Only for an agent dir without the running
 * index.
 */
function scanTaskFolders(agentDir: string): string[] {
  return taskFolderIds(agentDir).filter((taskId) => existsSync(runLockPath(agentDir, taskId)));
}

/**
 * The tasks of `agentDir` whose folder holds a run lock: those of the running index, or, without one, those a
 * look into every task folder finds.
 */
export function lockedTaskIds(agentDir: string): string[] {
  const indexed = indexedTaskIds(agentDir);
  if (!indexed) return scanTaskFolders(agentDir);
  return indexed.filter((taskId) => existsSync(runLockPath(agentDir, taskId)));
}

/**
 * Whether the start-up sweep has work. Any entry of the running index counts: a lock to look at, or an entry
 * whose lock is gone (its pi was killed between removing the one and the other) to drop. Without an index, a
 * look into every task folder that finds no lock starts the index (only where `subagent-sessions` exists).
 */
export function startupSweepHasWork(agentDir: string): boolean {
  const indexed = indexedTaskIds(agentDir);
  if (indexed) return indexed.length > 0;
  if (scanTaskFolders(agentDir).length > 0) return true;
  startRunningIndex(agentDir);
  return false;
}

/**
 * Creates the running index in an existing `subagent-sessions` (never the folder itself). Called when no lock is
 * left outside it: after a look into every task folder found none, or after the sweep reaped them.
 */
function startRunningIndex(agentDir: string): void {
  try {
    mkdirSync(runningIndexDir(agentDir), { mode: 0o700 });
  } catch {
    // already there, or no subagent-sessions yet (the first run creates both)
  }
}

/*
 * Whether this process's start-up sweep (src/start/main-pi.ts) ran, and a promise that settles once
 * it has: the background part waits for it before delivering a session's waiting results, so a run the sweep just
 * recorded (a hard-killed pi's blocking call, whose continued session must hear of it) goes out in the same
 * delivery. Per process, like the sweep itself.
 */
export interface StartupSweepState {
  done: boolean;
  /** Settles when the sweep has run, found nothing to do, or failed; never rejects. */
  readonly settled: Promise<void>;
  settle: () => void;
}

export function startupSweepState(): StartupSweepState {
  return perProcess("startup-sweep", () => {
    let settle = () => {};
    const settled = new Promise<void>((resolve) => (settle = resolve));
    return { done: false, settled, settle };
  });
}

/** How long delivery waits for the sweep at most (a sweep that never settles must not hold results back). */
export const SWEEP_WAIT_MAX_MS = 5000;

/** Settles when the sweep has, or after SWEEP_WAIT_MAX_MS, whichever comes first. */
export function afterStartupSweep(): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SWEEP_WAIT_MAX_MS);
    timer.unref();
  });
  return Promise.race([startupSweepState().settled, bound]).finally(() => clearTimeout(timer));
}
