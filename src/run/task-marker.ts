/**
 * The task marker: every child pi runs with `PI_SUBAGENT_TASK_ID=<task id>` in its environment, and everything
 * it starts inherits it, including a grandchild that left the process tree (`setsid cmd &`, a double fork).
 * Walking the tree cannot find such a daemon; scanning /proc/<pid>/environ for the marker can (Linux only).
 * Only our own processes (same uid) carrying exactly this marker are matched. Small and free of heavy imports:
 * a child pi's watchdog loads it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";

export const TASK_MARKER_ENV = "PI_SUBAGENT_TASK_ID";

/** Pids of our processes whose environment holds `PI_SUBAGENT_TASK_ID=<taskId>` (empty without /proc). */
export function processesCarryingMarker(taskId: string): number[] {
  if (!taskId) return [];
  const needle = `${TASK_MARKER_ENV}=${taskId}`;
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${entry}`).uid !== uid) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1");
      if (!environ.includes(needle)) continue;
      if (environ.split("\0").includes(needle)) found.push(Number(entry));
    } catch {
      // exited while we looked, or not readable
    }
  }
  return found;
}

/** Sends `signal` to every process carrying the marker (and each group one of them leads), except `except`. */
export function signalMarkedProcesses(taskId: string, signal: NodeJS.Signals, except: readonly number[] = []): number[] {
  const pids = processesCarryingMarker(taskId).filter((pid) => !except.includes(pid));
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, signal);
      } catch {
        // gone, or not a group leader
      }
    }
  }
  return pids;
}
