/**
 * The task marker: every child pi runs with `PI_SUBAGENT_TASK_ID=<task id>` in its environment, and everything
 * it starts inherits it, including a grandchild that left the process tree (`setsid cmd &`, a double fork).
 * Walking the tree cannot find such a daemon; scanning /proc/<pid>/environ for the marker can (Linux only).
 * Only our own processes (same uid) carrying exactly this marker are matched.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";

export const TASK_MARKER_ENV = "PI_SUBAGENT_TASK_ID";
/**
 * The tasks a nested child runs inside, outermost first, comma-separated. A grandchild gets a task id of its
 * own, so its marker alone would hide it from the task that started it; this list makes it (and everything it
 * starts) count as a process of each enclosing task too, so cancelling a child ends the whole tree below it.
 */
export const OUTER_TASKS_ENV = "PI_SUBAGENT_OUTER_TASK_IDS";

/** The outer-task list for a child of this process: this process's outer tasks and its own task. */
export function outerTasksForChild(env: NodeJS.ProcessEnv): string | undefined {
  const ids = [...(env[OUTER_TASKS_ENV] ?? "").split(","), env[TASK_MARKER_ENV] ?? ""].map((id) => id.trim()).filter((id) => id !== "");
  return ids.length > 0 ? ids.join(",") : undefined;
}

/** Whether a NUL-separated environment block marks a process of `taskId` (its own task, or an enclosing one). */
export function environCarriesTask(environ: string, taskId: string): boolean {
  if (!environ.includes(taskId)) return false;
  const own = `${TASK_MARKER_ENV}=${taskId}`;
  const outerPrefix = `${OUTER_TASKS_ENV}=`;
  for (const entry of environ.split("\0")) {
    if (entry === own) return true;
    if (entry.startsWith(outerPrefix) && entry.slice(outerPrefix.length).split(",").includes(taskId)) return true;
  }
  return false;
}

/**
 * Pids of our processes whose environment holds `PI_SUBAGENT_TASK_ID=<taskId>`, or names the task among its
 * outer tasks (a nested child's tree), empty without /proc.
 */
export function processesCarryingMarker(taskId: string): number[] {
  if (!taskId) return [];
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
      if (environCarriesTask(environ, taskId)) found.push(Number(entry));
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
