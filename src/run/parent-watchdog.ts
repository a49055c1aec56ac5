/**
 * The child side of "nothing outlives its pi": the task marker every child carries, and the watch on the pi that started it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { perProcess } from "../shared/this-process.ts";
import { isIdentityAlive, isIdentityRunning, ownProcessGroup, parseIdentity } from "../shared/proc-identity.ts";
import { PARENT_ENV } from "../shared/nesting.ts";

/*
 * The task marker: every child pi runs with `PI_SUBAGENT_TASK_ID=<task id>` in its environment, and everything
 * it starts inherits it, including a grandchild that left the process tree (`setsid cmd &`, a double fork).
 * Walking the tree cannot find such a daemon; scanning /proc/<pid>/environ for the marker can (Linux only).
 * Only our own processes (same uid) carrying exactly this marker are matched.
 */
export const TASK_MARKER_ENV = "PI_SUBAGENT_TASK_ID";
/**
 * The tasks a nested child runs inside, outermost first, comma-separated. A grandchild gets a task id of its
 * own, so its marker alone would hide it from the task that started it; this list makes it (and everything it
 * starts) count as a process of each enclosing task too, so cancelling a child ends the whole tree below it.
 */
export const OUTER_TASKS_ENV = "PI_SUBAGENT_OUTER_TASK_IDS";

/** The outer-task list for a child of this process: this process's outer tasks and its own task. */
export function outerTasksForChild(env: NodeJS.ProcessEnv): string | undefined {
  const ids = [...(env[OUTER_TASKS_ENV] ?? "").split(","), env[TASK_MARKER_ENV] ?? ""]
    .map((id) => id.trim())
    .filter((id) => id !== "");
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
export function signalMarkedProcesses(
  taskId: string,
  signal: NodeJS.Signals,
  except: readonly number[] = [],
): number[] {
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

/*
 * The child side of "nothing outlives its pi": a child pi (depth >= 1) watches the pi that started it. The
 * parent passes its identity (`PI_SUBAGENT_PARENT=<pid>:<start time>`); once a second an unref'd timer checks
 * that exactly that process still runs. When it is gone, whatever killed it (kill -9, SIGINT, a crash), the
 * child ends everything of its task: every process carrying the task marker (its bash tool's commands,
 * daemonized ones included), its own process group, and itself. There is nobody left to report to, so this is
 * a SIGKILL, not a graceful stop.
 *
 * An RPC child also notices its parent's death another way: its stdin closes, and pi then shuts down and exits
 * at once, before the next check, leaving its bash tool's commands behind. So when stdin ends, the child looks
 * at its parent at once: a parent that closed the pipe on purpose (after the run ended) is still running; one
 * that died is gone, a zombie, or already without memory (see isIdentityRunning). In the second case every
 * process of the task but this one is ended then, and pi exits by itself.
 *
 * A sandboxed child runs none of this: its pid namespace hides the parent, and bubblewrap ends the namespace with
 * the parent instead (src/sandbox/bwrap-args.ts), so it is not given PI_SUBAGENT_PARENT.
 *
 * Who starts it: the package's entry, first thing in every child (the parent passes its own `-e` of the package on,
 * so a child loads the package however the parent got it). The first load claims the process, so there is only
 * ever one watch.
 */
export const WATCHDOG_INTERVAL_MS = 1000;

export interface WatchdogDeps {
  parentAlive: (parent: import("../shared/proc-identity.ts").ProcessIdentity) => boolean;
  endTask: (taskId: string | undefined) => void;
  setInterval: (callback: () => void, ms: number) => { unref(): void };
  clearInterval: (timer: { unref(): void }) => void;
}

/**
 * SIGKILL to everything of the task except this process (which is exiting, or ends itself after) and the leader
 * of its group when that is another process (a wrapper that started this one in its group), so that signalling it
 * first cannot end this process before the rest of the task.
 */
function endTaskProcesses(taskId: string | undefined) {
  const group = ownProcessGroup();
  if (taskId)
    signalMarkedProcesses(
      taskId,
      "SIGKILL",
      group === undefined || group === process.pid ? [process.pid] : [process.pid, group],
    );
}

/**
 * SIGKILL to everything of the task, this process last (its own group includes it); only a group it leads is
 * signalled.
 */
function endTaskNow(taskId: string | undefined) {
  endTaskProcesses(taskId);
  try {
    process.kill(-process.pid, "SIGKILL");
  } catch {
    // not a group leader (started by hand rather than by the parent): end just this process
  }
  process.kill(process.pid, "SIGKILL");
}

const defaultDeps: WatchdogDeps = {
  parentAlive: isIdentityAlive,
  endTask: endTaskNow,
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (timer) => clearInterval(timer as NodeJS.Timeout),
};

/**
 * Starts watching the parent named in `env`. Returns undefined when there is no parent to watch (the main pi,
 * or a child started without the variable).
 */
export function startParentWatchdog(
  env: NodeJS.ProcessEnv = process.env,
  deps: WatchdogDeps = defaultDeps,
): { stop(): void } | undefined {
  const parent = parseIdentity(env[PARENT_ENV]);
  if (!parent) return undefined;
  const taskId = env[TASK_MARKER_ENV];
  const timer = deps.setInterval(() => {
    if (deps.parentAlive(parent)) return;
    deps.clearInterval(timer);
    deps.endTask(taskId);
  }, WATCHDOG_INTERVAL_MS);
  // The watchdog never keeps the child alive by itself.
  timer.unref();
  return { stop: () => deps.clearInterval(timer) };
}

export interface InputEndDeps {
  parentRunning: (parent: import("../shared/proc-identity.ts").ProcessIdentity) => boolean;
  endTask: (taskId: string | undefined) => void;
}

const defaultInputEndDeps: InputEndDeps = { parentRunning: isIdentityRunning, endTask: endTaskProcesses };

/**
 * When `input` (an RPC child's stdin) ends and the parent named in `env` is no longer running, ends every
 * process of the task but this one. Registered before pi's own stdin listener, so it runs first.
 * @returns whether it is watching
 */
export function endTaskWhenInputEnds(
  input: { once(event: "end", listener: () => void): unknown },
  env: NodeJS.ProcessEnv = process.env,
  deps: InputEndDeps = defaultInputEndDeps,
): boolean {
  const parent = parseIdentity(env[PARENT_ENV]);
  if (!parent) return false;
  input.once("end", () => {
    if (!deps.parentRunning(parent)) deps.endTask(env[TASK_MARKER_ENV]);
  });
  return true;
}

/** Whether pi's arguments run it in RPC mode (the only mode in which a child reads its stdin). */
export function isRpcMode(argv: readonly string[]): boolean {
  return argv.some((arg, index) => arg === "--mode=rpc" || (arg === "--mode" && argv[index + 1] === "rpc"));
}

/**
 * Everything a child does to end with its parent: the watchdog, and in RPC mode the stdin watch. Once per
 * process; later loads of the package (a /reload in the child) do nothing. A no-op in the main pi.
 */
export function watchParentFromChild(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv) {
  const watch = perProcess("child-watch", () => ({ started: false }));
  if (watch.started || !parseIdentity(env[PARENT_ENV])) return;
  watch.started = true;
  startParentWatchdog(env);
  if (isRpcMode(argv)) endTaskWhenInputEnds(process.stdin, env);
}
