/**
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
import { perProcess } from "../shared/per-process.ts";
import { isIdentityAlive, isIdentityRunning, ownProcessGroup, parseIdentity } from "../shared/proc-identity.ts";
import { signalMarkedProcesses, TASK_MARKER_ENV } from "./task-marker.ts";

import { PARENT_ENV } from "../shared/depth.ts";
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
  if (taskId) signalMarkedProcesses(taskId, "SIGKILL", group === undefined || group === process.pid ? [process.pid] : [process.pid, group]);
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
  clearInterval: (timer) => clearInterval((timer as NodeJS.Timeout)),
};

/**
 * Starts watching the parent named in `env`. Returns undefined when there is no parent to watch (the main pi,
 * or a child started without the variable).
 */
export function startParentWatchdog(env: NodeJS.ProcessEnv = process.env, deps: WatchdogDeps = defaultDeps): { stop(): void } | undefined {
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
export function endTaskWhenInputEnds(input: { once(event: "end", listener: () => void): unknown }, env: NodeJS.ProcessEnv = process.env, deps: InputEndDeps = defaultInputEndDeps): boolean {
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
