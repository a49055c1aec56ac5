/**
 * Who a process is, beyond its pid: a pid is reused once its process ended, so a stored pid alone may name a
 * stranger. On Linux a process's start time (field 22 of /proc/<pid>/stat, in clock ticks since boot) never
 * changes while it lives, so pid plus start time names exactly one process. Elsewhere only the pid is known.
 */
import { readFileSync } from "node:fs";

export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat; absent where /proc is not available. */
  start?: string;
}

/**
 * Fields 3 onwards of /proc/<pid>/stat (field n is at index n - 3), or undefined when the process is gone or
 * /proc is absent.
 */
function statFields(pid: number): string[] | undefined {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name in parentheses may hold spaces; after the last ')' come field 3 onwards.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * The start time of `pid` (field 22 of /proc/<pid>/stat), or undefined when it is gone, a zombie, or /proc is
 * absent.
 */
export function processStartTime(pid: number): string | undefined {
  const fields = statFields(pid);
  // A zombie has exited; it only waits to be reaped.
  if (!fields || fields[0] === "Z" || fields[0] === "X") return undefined;
  return fields[22 - 3];
}

/**
 * The process group this process is in (field 5 of /proc/self/stat), or undefined without /proc. A sandboxed
 * child is not its group's leader: bwrap, which the parent spawned, is.
 */
export function ownProcessGroup(): number | undefined {
  const group = Number(statFields(process.pid)?.[5 - 3]);
  return Number.isInteger(group) && group > 0 ? group : undefined;
}

let own: ProcessIdentity | undefined;

export function ownIdentity(): ProcessIdentity {
  own ??= { pid: process.pid, start: processStartTime(process.pid) };
  return own;
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the process `identity` names still runs (the same process, not a later one with its pid). */
export function isIdentityAlive(identity: ProcessIdentity): boolean {
  if (!Number.isInteger(identity.pid) || identity.pid <= 0) return false;
  if (identity.start === undefined) return pidExists(identity.pid);
  const start = processStartTime(identity.pid);
  if (start !== undefined) return start === identity.start;
  // No /proc entry: gone on Linux; on a system without /proc, fall back to the pid.
  return !hasProcFs() && pidExists(identity.pid);
}

/**
 * Like isIdentityAlive, and not already on its way out. A dying process gives up its memory before it closes
 * its files (the kernel's exit order), and becomes a zombie only after both; so a process whose pipe to us has
 * just closed but which still shows in /proc with no memory (field 23, vsize, is 0) is exiting, not alive.
 */
export function isIdentityRunning(identity: ProcessIdentity): boolean {
  if (!Number.isInteger(identity.pid) || identity.pid <= 0) return false;
  // One read of /proc answers both questions (the watchdog asks every second).
  const fields = statFields(identity.pid);
  if (!fields) return !hasProcFs() && pidExists(identity.pid);
  if (fields[0] === "Z" || fields[0] === "X") return false;
  if (identity.start !== undefined && fields[22 - 3] !== identity.start) return false;
  return fields[23 - 3] !== "0";
}

let procChecked: boolean | undefined;
function hasProcFs(): boolean {
  procChecked ??= processStartTime(process.pid) !== undefined;
  return procChecked;
}

/** `pid:start` (or `pid`), the form carried in an environment variable. */
export function formatIdentity(identity: ProcessIdentity): string {
  return identity.start === undefined ? String(identity.pid) : `${identity.pid}:${identity.start}`;
}

export function parseIdentity(text: string | undefined): ProcessIdentity | undefined {
  const match = /^(\d+)(?::(\d+))?$/.exec(text?.trim() ?? "");
  if (!match) return undefined;
  const pid = Number(match[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return match[2] === undefined ? { pid } : { pid, start: match[2] };
}

/** Whether two identities name the same process (start times are compared only when both are known). */
export function isSameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && (a.start === undefined || b.start === undefined || a.start === b.start);
}
