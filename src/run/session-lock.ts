/**
 * One run per session at a time, across processes: a `run.lock` file in the task folder, created exclusively.
 * It names the pi that dispatched the run (the owner) and, once spawned, the child pi that really writes the
 * session, each as pid plus start time (/proc/<pid>/stat field 22), so a pid reused by an unrelated process is
 * never taken for either. The lock is held while either of them runs: the owner (queued, or finishing up) or
 * the child (even an orphan whose owner died). A lock neither of them holds any more is stale and taken over.
 */
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isIdentityAlive, ownIdentity, processStartTime } from "../shared/proc-identity.ts";
import { taskDir } from "./session-file.ts";
import { atomicTempPath } from "../shared/atomic-file.ts";
import { createStateFileSync, readStateFileSync, SMALL_STATE_MAX_BYTES } from "../shared/state-file.ts";
import { markRunning, RUN_LOCK_FILE_NAME, unmarkRunning } from "./startup-work.ts";
import type { ProcessIdentity } from "../shared/proc-identity.ts";

export const LOCK_FILE_NAME = RUN_LOCK_FILE_NAME;

/** What the lock says about the run (all but `pid` and `agent` may be missing from older locks). */
export interface LockContent {
  /** The owner: the pi that dispatched the run. */
  pid: number;
  pidStart?: string;
  /** The child pi writing the session, once spawned. */
  childPid?: number;
  childStart?: string;
  agent: string;
  since: number;
  /**
   * Enough to record the run if its owner dies (the next start writes a failed record from
   * it).
   */
  task?: string;
  mode?: "sync" | "async";
  parentSessionId?: string;
  cwd?: string;
}

export interface LockDetails {
  task?: string;
  mode?: "sync" | "async";
  parentSessionId?: string;
  cwd?: string;
}

export type LockResult = { acquired: true; release: () => void; childStarted: (pid: number) => void }
  | { acquired: false; holder: string };

export function lockPath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), LOCK_FILE_NAME);
}

export function ownerOf(content: LockContent): ProcessIdentity {
  return { pid: content.pid, start: content.pidStart };
}

export function childOf(content: LockContent): ProcessIdentity | undefined {
  return typeof content.childPid === "number" ? { pid: content.childPid, start: content.childStart } : undefined;
}

/** Whether a live process holds the lock: its owner, or the child writing the session. */
export function isLockLive(content: LockContent, alive: (identity: ProcessIdentity) => boolean = isIdentityAlive): boolean {
  if (alive(ownerOf(content))) return true;
  const child = childOf(content);
  return child !== undefined && alive(child);
}

function parseLock(text: string): LockContent | undefined {
  try {
    const parsed = (JSON.parse(text) as Partial<LockContent> | null);
    if (!parsed || typeof parsed.pid !== "number") return undefined;
    return ({ agent: "", since: 0, ...parsed } as LockContent);
  } catch {
    return undefined;
  }
}

/** The lock's text: a regular file of at most SMALL_STATE_MAX_BYTES, never a link (state-file.ts). */
function readLockFile(file: string): LockContent | undefined {
  const read = readStateFileSync(file, SMALL_STATE_MAX_BYTES);
  return read.ok ? parseLock(read.text) : undefined;
}

export function readSessionLock(agentDir: string, taskId: string): LockContent | undefined {
  return readLockFile(lockPath(agentDir, taskId));
}

function describeHolder(content: LockContent | undefined): string {
  if (!content) return "by another run";
  const child = childOf(content);
  if (child && !isIdentityAlive(ownerOf(content))) return `agent ${content.agent}, in child process ${child.pid} whose pi has ended`;
  const where = content.pid === process.pid ? "in this pi" : `in pi process ${content.pid}`;
  return `agent ${content.agent}, ${where}`;
}

export function acquireSessionLock(agentDir: string, taskId: string, agent: string, details: LockDetails = {}): LockResult {
  const file = lockPath(agentDir, taskId);
  const owner = ownIdentity();
  const content: LockContent = { pid: owner.pid, pidStart: owner.start, agent, since: Date.now(), ...details };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      createStateFileSync(file, JSON.stringify(content));
      // The start-up sweep finds a lock through the running index (src/run/startup-work.ts).
      markRunning(agentDir, taskId);
      let released = false;
      return {
        acquired: true,
        release: () => {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
          unmarkRunning(agentDir, taskId);
        },
        childStarted: (pid) => {
          if (released) return;
          // Written beside and renamed over, so a reader never sees half a lock.
          const updated: LockContent = { ...content, childPid: pid, childStart: processStartTime(pid) };
          const temp = atomicTempPath(file);
          try {
            createStateFileSync(temp, JSON.stringify(updated));
            renameSync(temp, file);
          } catch {
            // the owner's identity still holds the lock while it lives; only an orphan check is weaker
            rmSync(temp, { force: true });
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readLockFile(file);
      if (holder && isLockLive(holder)) return { acquired: false, holder: describeHolder(holder) };
      // Its owner and its child are gone (or it is unreadable): take it over.
      rmSync(file, { force: true });
    }
  }
  return { acquired: false, holder: "by another run" };
}
