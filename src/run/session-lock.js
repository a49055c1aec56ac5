// @ts-check
/**
 * One run per session at a time, across processes: a `run.lock` file in the task folder, created exclusively.
 * It names the pi that dispatched the run (the owner) and, once spawned, the child pi that really writes the
 * session, each as pid plus start time (/proc/<pid>/stat field 22), so a pid reused by an unrelated process is
 * never taken for either. The lock is held while either of them runs: the owner (queued, or finishing up) or
 * the child (even an orphan whose owner died). A lock neither of them holds any more is stale and taken over.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isIdentityAlive, ownIdentity, processStartTime } from "./proc-identity.js";
import { taskDir } from "./session-file.js";
import { markRunning, RUN_LOCK_FILE_NAME, unmarkRunning } from "../tasks/startup-work.js";
/** @import { ProcessIdentity } from "./proc-identity.js" */

export const LOCK_FILE_NAME = RUN_LOCK_FILE_NAME;

/**
 * What the lock says about the run (all but `pid` and `agent` may be missing from older locks).
 * @typedef {object} LockContent
 * @property {number} pid The owner: the pi that dispatched the run.
 * @property {string} [pidStart]
 * @property {number} [childPid] The child pi writing the session, once spawned.
 * @property {string} [childStart]
 * @property {string} agent
 * @property {number} since
 * @property {string} [task] Enough to record the run if its owner dies (the next start writes a failed record from
 *   it).
 * @property {"sync" | "async"} [mode]
 * @property {string} [parentSessionId]
 * @property {string} [cwd]
 */

/**
 * @typedef {object} LockDetails
 * @property {string} [task]
 * @property {"sync" | "async"} [mode]
 * @property {string} [parentSessionId]
 * @property {string} [cwd]
 */

/**
 * @typedef {{ acquired: true; release: () => void; childStarted: (pid: number) => void }
 *   | { acquired: false; holder: string }} LockResult
 */

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {string}
 */
export function lockPath(agentDir, taskId) {
  return join(taskDir(agentDir, taskId), LOCK_FILE_NAME);
}

/**
 * @param {LockContent} content
 * @returns {ProcessIdentity}
 */
export function ownerOf(content) {
  return { pid: content.pid, start: content.pidStart };
}

/**
 * @param {LockContent} content
 * @returns {ProcessIdentity | undefined}
 */
export function childOf(content) {
  return typeof content.childPid === "number" ? { pid: content.childPid, start: content.childStart } : undefined;
}

/**
 * Whether a live process holds the lock: its owner, or the child writing the session.
 * @param {LockContent} content
 * @param {(identity: ProcessIdentity) => boolean} [alive=isIdentityAlive]
 * @returns {boolean}
 */
export function isLockLive(content, alive = isIdentityAlive) {
  if (alive(ownerOf(content))) return true;
  const child = childOf(content);
  return child !== undefined && alive(child);
}

/**
 * @param {string} text
 * @returns {LockContent | undefined}
 */
function parseLock(text) {
  try {
    const parsed = /** @type {Partial<LockContent> | null} */ (JSON.parse(text));
    if (!parsed || typeof parsed.pid !== "number") return undefined;
    return /** @type {LockContent} */ ({ agent: "", since: 0, ...parsed });
  } catch {
    return undefined;
  }
}

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {LockContent | undefined}
 */
export function readSessionLock(agentDir, taskId) {
  try {
    return parseLock(readFileSync(lockPath(agentDir, taskId), "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * @param {LockContent | undefined} content
 * @returns {string}
 */
function describeHolder(content) {
  if (!content) return "by another run";
  const child = childOf(content);
  if (child && !isIdentityAlive(ownerOf(content))) return `agent ${content.agent}, in child process ${child.pid} whose pi has ended`;
  const where = content.pid === process.pid ? "in this pi" : `in pi process ${content.pid}`;
  return `agent ${content.agent}, ${where}`;
}

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @param {string} agent
 * @param {LockDetails} [details={}]
 * @returns {LockResult}
 */
export function acquireSessionLock(agentDir, taskId, agent, details = {}) {
  const file = lockPath(agentDir, taskId);
  const owner = ownIdentity();
  /** @type {LockContent} */
  const content = { pid: owner.pid, pidStart: owner.start, agent, since: Date.now(), ...details };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(content), { flag: "wx", mode: 0o600 });
      // The start-up sweep finds a lock through the running index (src/tasks/startup-work.js).
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
          /** @type {LockContent} */
          const updated = { ...content, childPid: pid, childStart: processStartTime(pid) };
          const temp = `${file}.${process.pid}.tmp`;
          try {
            writeFileSync(temp, JSON.stringify(updated), { mode: 0o600 });
            renameSync(temp, file);
          } catch {
            // the owner's identity still holds the lock while it lives; only an orphan check is weaker
            rmSync(temp, { force: true });
          }
        },
      };
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EEXIST") throw error;
      /** @type {LockContent | undefined} */
      let holder;
      try {
        holder = parseLock(readFileSync(file, "utf8"));
      } catch {
        holder = undefined;
      }
      if (holder && isLockLive(holder)) return { acquired: false, holder: describeHolder(holder) };
      // Its owner and its child are gone (or it is unreadable): take it over.
      rmSync(file, { force: true });
    }
  }
  return { acquired: false, holder: "by another run" };
}
