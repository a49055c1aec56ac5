/**
 * Who a process is, robustly: its pid plus the time it started (field 22 of `/proc/<pid>/stat`, in clock ticks
 * since boot). A pid alone is not enough, because the kernel reuses pids: a stale pid may belong to another
 * process by now. Where `/proc` is missing (not Linux) the start time is unknown and only the pid is compared.
 */
import { readFileSync } from "node:fs";

export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat; absent where it cannot be read. */
  startTime?: string;
}

/** The start time of `pid` from /proc, or undefined (no such process, or no /proc). */
export function readStartTime(pid: number, procRoot = "/proc"): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`${procRoot}/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return startTimeFromStat(stat);
}

/**
 * Field 22 of a /proc/<pid>/stat line. The second field (the command name, in parentheses) may itself hold
 * spaces and parentheses, so the fields are counted from the last `)`.
 */
export function startTimeFromStat(stat: string): string | undefined {
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  // After ")": field 3 (state) is the first; field 22 is the 20th.
  const fields = stat.slice(close + 1).trim().split(/\s+/);
  const value = fields[19];
  return value && /^\d+$/.test(value) ? value : undefined;
}

let self: ProcessIdentity | undefined;

/** This process. */
export function selfIdentity(): ProcessIdentity {
  self ??= { pid: process.pid, startTime: readStartTime(process.pid) };
  return self;
}

export function isSameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && (a.startTime === undefined || b.startTime === undefined || a.startTime === b.startTime);
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True while the process named by `identity` runs (a reused pid with another start time is not it). */
export function isProcessAlive(identity: ProcessIdentity): boolean {
  if (!Number.isInteger(identity.pid) || identity.pid <= 0) return false;
  if (!pidExists(identity.pid)) return false;
  if (identity.startTime === undefined) return true;
  const now = readStartTime(identity.pid);
  return now === undefined || now === identity.startTime;
}
