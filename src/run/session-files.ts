/**
 * A run's files in its task folder: the session file, the run lock, the agent's prompt file, and prompt folders older versions left.
 */
import { lstatSync, mkdirSync, renameSync, rmSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { subagentSessionsDir } from "../shared/this-process.ts";
import { createStateFileSync, atomicTempPath, readStateFileSync, SMALL_STATE_MAX_BYTES } from "../shared/safe-write.ts";
import { idForMessage, isTaskId } from "../shared/nesting.ts";
import { isIdentityAlive, ownIdentity, processStartTime, type ProcessIdentity } from "../shared/proc-identity.ts";
import { markRunning, RUN_LOCK_FILE_NAME, unmarkRunning, WARM_LOCK_FILE_NAME } from "./startup-work.ts";
import { tmpdir } from "node:os";

/*
 * The child's session file. pi 0.73.1 has no `--session-id`, so we write the one-line session header
 * ourselves and start the child with `--session <file>`: pi then uses our id, and the same path resumes it.
 */
const SESSION_FILE_NAME = "session.jsonl";

/** A task's folder. Throws for anything but a task id: an id must never reach the disk as a path (`../x`). */
export function taskDir(agentDir: string, taskId: string): string {
  if (!isTaskId(taskId)) throw new Error(`not a task id: ${JSON.stringify(idForMessage(taskId))}`);
  return join(subagentSessionsDir(agentDir), taskId);
}

export function sessionFilePath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), SESSION_FILE_NAME);
}

export function sessionHeaderLine(taskId: string, cwd: string, now: Date): string {
  return `${JSON.stringify({ type: "session", version: 3, id: taskId, timestamp: now.toISOString(), cwd })}\n`;
}

/**
 * Creates a new session file for `taskId` (refusing to overwrite one that exists). `history` (session entry
 * lines, see run/fork-history.ts) follows the header for a child that starts on a forked conversation.
 */
export function createSessionFile(
  agentDir: string,
  taskId: string,
  cwd: string,
  now: Date = new Date(),
  history: string = "",
): string {
  const file = sessionFilePath(agentDir, taskId);
  mkdirSync(taskDir(agentDir, taskId), { recursive: true, mode: 0o700 });
  // Exclusive and checked: a forked history cut short by a full disk is removed, never resumed half.
  createStateFileSync(file, sessionHeaderLine(taskId, cwd, now) + history);
  return file;
}

/**
 * Whether the task has a session to resume: a regular file, never a link or a FIFO (the child would append
 * through a planted link to its target, or hang on a FIFO); anything else counts as no session.
 */
export function sessionFileExists(agentDir: string, taskId: string): boolean {
  try {
    return lstatSync(sessionFilePath(agentDir, taskId)).isFile();
  } catch {
    return false;
  }
}

/*
 * One run per session at a time, across processes: a `run.lock` file in the task folder, created exclusively.
 * It names the pi that dispatched the run (the owner) and, once spawned, the child pi that really writes the
 * session, each as pid plus start time (/proc/<pid>/stat field 22), so a pid reused by an unrelated process is
 * never taken for either. The lock is held while either of them runs: the owner (queued, or finishing up) or
 * the child (even an orphan whose owner died). A lock neither of them holds any more is stale and taken over.
 */
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

export type LockResult =
  | { acquired: true; release: () => void; childStarted: (pid: number) => void }
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
export function isLockLive(
  content: LockContent,
  alive: (identity: ProcessIdentity) => boolean = isIdentityAlive,
): boolean {
  if (alive(ownerOf(content))) return true;
  const child = childOf(content);
  return child !== undefined && alive(child);
}

function parseLock(text: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockContent> | null;
    if (!parsed || typeof parsed.pid !== "number") return undefined;
    return { agent: "", since: 0, ...parsed } as LockContent;
  } catch {
    return undefined;
  }
}

/** The lock's text: a regular file of at most SMALL_STATE_MAX_BYTES, never a link (src/shared/safe-write.ts). */
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
  if (child && !isIdentityAlive(ownerOf(content)))
    return `agent ${content.agent}, in child process ${child.pid} whose pi has ended`;
  const where = content.pid === process.pid ? "in this pi" : `in pi process ${content.pid}`;
  return `agent ${content.agent}, ${where}`;
}

export function acquireSessionLock(
  agentDir: string,
  taskId: string,
  agent: string,
  details: LockDetails = {},
): LockResult {
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

/*
 * The file that holds an agent's body for the child's `--append-system-prompt`: `agent-prompt.md` in the task's
 * folder, written (mode 0600) after the run's lock is taken and removed before it is released. A pi killed hard
 * leaves it beside the lock, and the start-up clean-up that reaps the run removes both, so no listing of the temp
 * folder is ever needed for it (src/run/session-files.ts keeps the sweep of the temp folders earlier versions used).
 */
const AGENT_PROMPT_FILE_NAME = "agent-prompt.md";

export function agentPromptPath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), AGENT_PROMPT_FILE_NAME);
}

/**
 * Writes the body for a run of `taskId` (whose folder exists: its session file is made first) and returns the
 * file's path. A resumed task's earlier file is replaced.
 */
export function writeAgentPrompt(agentDir: string, taskId: string, body: string): string {
  const path = agentPromptPath(agentDir, taskId);
  // Removed first so the mode is 0600 also when an older file is replaced.
  rmSync(path, { force: true });
  createStateFileSync(path, body);
  return path;
}

/** Whether the task's prompt file holds exactly `body` (a warm child read it as it started: it is kept as it is). */
export function agentPromptIs(agentDir: string, taskId: string, body: string): boolean {
  const read = readStateFileSync(agentPromptPath(agentDir, taskId), Buffer.byteLength(body) + 1);
  return read.ok && read.text === body;
}

export function removeAgentPrompt(agentDir: string, taskId: string): void {
  rmSync(agentPromptPath(agentDir, taskId), { force: true });
}

/*
 * A warm child's claim on its task folder (src/warm/warm-pool.ts): `warm.lock`, naming the pi that started the child
 * ahead of its task, beside the session file and prompt file the child was started with. The task is in the running
 * index meanwhile, so a pi killed hard leaves it for the start-up sweep, which removes the folder of a warm child
 * whose pi is gone (its child ended with it: it watches its parent). A task that takes the child removes the file.
 */
export function warmLockPath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), WARM_LOCK_FILE_NAME);
}

/** Writes the warm claim for this pi (the task folder exists). */
export function writeWarmLock(agentDir: string, taskId: string): void {
  const owner = ownIdentity();
  createStateFileSync(warmLockPath(agentDir, taskId), JSON.stringify({ pid: owner.pid, pidStart: owner.start }));
  markRunning(agentDir, taskId);
}

/** The pi that holds a warm claim on the task's folder, or undefined when there is none (or it is unreadable). */
export function readWarmLockOwner(agentDir: string, taskId: string): ProcessIdentity | undefined {
  const read = readStateFileSync(warmLockPath(agentDir, taskId), SMALL_STATE_MAX_BYTES);
  if (!read.ok) return undefined;
  try {
    const parsed = JSON.parse(read.text) as { pid?: unknown; pidStart?: unknown };
    if (typeof parsed.pid !== "number") return undefined;
    return typeof parsed.pidStart === "string" ? { pid: parsed.pid, start: parsed.pidStart } : { pid: parsed.pid };
  } catch {
    return undefined;
  }
}

/** Removes a warm child's whole task folder (no task ever ran there) and its entry in the running index. */
export function removeWarmFolder(agentDir: string, taskId: string): void {
  rmSync(taskDir(agentDir, taskId), { recursive: true, force: true });
  unmarkRunning(agentDir, taskId);
}

/** A task took the warm child: the folder is the task's now (its run lock holds it from here). */
export function dropWarmLock(agentDir: string, taskId: string): void {
  rmSync(warmLockPath(agentDir, taskId), { force: true });
}

/*
 * Prompt folders in the temp folder, as earlier versions of the package made them for an agent's body
 * (`pi-subagent-prompt-<pid>-<start time>-XXXXXX`; the body now lives in the task's folder, src/run/session-files.ts).
 * One left by a pi of such a version that was killed hard is recognised by the owner its name carries and swept
 * when the start-up clean-up runs.
 */
const PROMPT_DIR_PREFIX = "pi-subagent-prompt-";

/** The owner named in a prompt folder's name, or undefined for a name that is not ours. */
export function promptDirOwner(name: string): ProcessIdentity | undefined {
  const match = /^pi-subagent-prompt-(\d+)-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
  if (!match) return undefined;
  return match[2] === "0" ? { pid: Number(match[1]) } : { pid: Number(match[1]), start: match[2] };
}

/**
 * Removes prompt folders of ours (our uid) whose owning pi no longer runs. Returns how many it removed.
 * One readdir of the temp folder, only when the start-up clean-up runs for a run to reap (never on start-up's
 * path: a crowded temp folder costs several ms to list).
 */
export function sweepStalePromptDirs(
  base: string = tmpdir(),
  alive: (owner: ProcessIdentity) => boolean = isIdentityAlive,
): number {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return 0;
  }
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(PROMPT_DIR_PREFIX)) continue;
    const owner = promptDirOwner(name);
    if (!owner || alive(owner)) continue;
    const path = join(base, name);
    try {
      const stat = statSync(path);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
      rmSync(path, { recursive: true, force: true });
      removed += 1;
    } catch {
      // removed meanwhile, or not ours to remove
    }
  }
  return removed;
}
