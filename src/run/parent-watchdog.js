// @ts-check
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
 * Who starts it: node itself, through src/run/child-preload.js, for a child that does not load this package
 * (a child at the depth limit, when the package came with `-e`); otherwise the package's entry. Whichever comes
 * first claims the process, so there is only ever one watch. Plain JavaScript for the first of those.
 */
import { isIdentityAlive, isIdentityRunning, parseIdentity } from "./proc-identity.js";
import { signalMarkedProcesses, TASK_MARKER_ENV } from "./task-marker.js";

export const PARENT_ENV = "PI_SUBAGENT_PARENT";
export const WATCHDOG_INTERVAL_MS = 1000;

/**
 * @typedef {object} WatchdogDeps
 * @property {(parent: import("./proc-identity.js").ProcessIdentity) => boolean} parentAlive
 * @property {(taskId: string | undefined) => void} endTask
 * @property {(callback: () => void, ms: number) => { unref(): void }} setInterval
 * @property {(timer: { unref(): void }) => void} clearInterval
 */

/**
 * SIGKILL to everything of the task except this process (which is exiting, or ends itself after).
 * @param {string | undefined} taskId
 */
function endTaskProcesses(taskId) {
  if (taskId) signalMarkedProcesses(taskId, "SIGKILL", [process.pid]);
}

/**
 * SIGKILL to everything of the task, this process last (its own group includes it).
 * @param {string | undefined} taskId
 */
function endTaskNow(taskId) {
  endTaskProcesses(taskId);
  try {
    process.kill(-process.pid, "SIGKILL");
  } catch {
    // not a group leader (started by hand rather than by the parent): end just this process
  }
  process.kill(process.pid, "SIGKILL");
}

/** @type {WatchdogDeps} */
const defaultDeps = {
  parentAlive: isIdentityAlive,
  endTask: endTaskNow,
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (timer) => clearInterval(/** @type {NodeJS.Timeout} */ (timer)),
};

/**
 * Starts watching the parent named in `env`. Returns undefined when there is no parent to watch (the main pi,
 * or a child started without the variable).
 * @param {NodeJS.ProcessEnv} [env]
 * @param {WatchdogDeps} [deps]
 * @returns {{ stop(): void } | undefined}
 */
export function startParentWatchdog(env = process.env, deps = defaultDeps) {
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

/**
 * @typedef {object} InputEndDeps
 * @property {(parent: import("./proc-identity.js").ProcessIdentity) => boolean} parentRunning
 * @property {(taskId: string | undefined) => void} endTask
 */

/** @type {InputEndDeps} */
const defaultInputEndDeps = { parentRunning: isIdentityRunning, endTask: endTaskProcesses };

/**
 * When `input` (an RPC child's stdin) ends and the parent named in `env` is no longer running, ends every
 * process of the task but this one. Registered before pi's own stdin listener, so it runs first.
 * @param {{ once(event: "end", listener: () => void): unknown }} input
 * @param {NodeJS.ProcessEnv} [env]
 * @param {InputEndDeps} [deps]
 * @returns {boolean} whether it is watching
 */
export function endTaskWhenInputEnds(input, env = process.env, deps = defaultInputEndDeps) {
  const parent = parseIdentity(env[PARENT_ENV]);
  if (!parent) return false;
  input.once("end", () => {
    if (!deps.parentRunning(parent)) deps.endTask(env[TASK_MARKER_ENV]);
  });
  return true;
}

/**
 * Whether pi's arguments run it in RPC mode (the only mode in which a child reads its stdin).
 * @param {readonly string[]} argv
 * @returns {boolean}
 */
export function isRpcMode(argv) {
  return argv.some((arg, index) => arg === "--mode=rpc" || (arg === "--mode" && argv[index + 1] === "rpc"));
}

/** Marks the process as watched, across module instances (node's loader and pi's load separate copies). */
const CLAIM = Symbol.for("pi-subagent-dispatch.child-watch");

/**
 * Everything a child does to end with its parent: the watchdog, and in RPC mode the stdin watch. Once per
 * process; later calls (the package's entry after the preload) do nothing. A no-op in the main pi.
 * @param {NodeJS.ProcessEnv} [env]
 * @param {readonly string[]} [argv]
 */
export function watchParentFromChild(env = process.env, argv = process.argv) {
  const global = /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis));
  if (global[CLAIM] || !parseIdentity(env[PARENT_ENV])) return;
  global[CLAIM] = true;
  startParentWatchdog(env);
  if (isRpcMode(argv)) endTaskWhenInputEnds(process.stdin, env);
}
