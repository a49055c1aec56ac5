/**
 * The child side of "nothing outlives its pi": a child pi (depth >= 1) that loads this extension watches the
 * pi that started it. The parent passes its identity (`PI_SUBAGENT_PARENT=<pid>:<start time>`); once a second
 * an unref'd timer checks that exactly that process still runs. When it is gone, whatever killed it (kill -9,
 * SIGINT, a crash), the child ends everything of its task: every process carrying the task marker (its bash
 * tool's commands, daemonized ones included), its own process group, and itself. There is nobody left to
 * report to, so this is a SIGKILL, not a graceful stop.
 *
 * An RPC child also notices its parent's death another way: its stdin closes, and pi then shuts down and exits
 * at once, before the next check, leaving its bash tool's commands behind. The parent may even still show in
 * /proc at that instant (the kernel closes a dying process's files before it becomes a zombie), so the check
 * cannot be "is the parent alive". Instead: the parent closes a child's stdin only after the child's run ended
 * (agent_end), so stdin ending while a run is in progress means the parent is gone, and everything of the task
 * is ended then (see endTaskWhenInputEndsMidRun).
 *
 * Loaded at the child's start-up, so it imports nothing heavy: node:fs through two small modules.
 */
import { isIdentityAlive, parseIdentity, type ProcessIdentity } from "./proc-identity.ts";
import { signalMarkedProcesses, TASK_MARKER_ENV } from "./task-marker.ts";

export const PARENT_ENV = "PI_SUBAGENT_PARENT";
export const WATCHDOG_INTERVAL_MS = 1000;

export interface WatchdogDeps {
  parentAlive: (parent: ProcessIdentity) => boolean;
  endTask: (taskId: string | undefined) => void;
  setInterval: (callback: () => void, ms: number) => { unref(): void };
  clearInterval: (timer: { unref(): void }) => void;
}

/** SIGKILL to everything of the task except this process (which is exiting, or ends itself after). */
function endTaskProcesses(taskId: string | undefined): void {
  if (taskId) signalMarkedProcesses(taskId, "SIGKILL", [process.pid]);
}

/** SIGKILL to everything of the task, this process last (its own group includes it). */
function endTaskNow(taskId: string | undefined): void {
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

let running: { stop(): void } | undefined;

/**
 * Starts watching the parent named in `env` (once per process; later calls reuse the first watchdog). Returns
 * undefined when there is no parent to watch (the main pi, or a child started without the variable).
 */
export function startParentWatchdog(env: NodeJS.ProcessEnv = process.env, deps: WatchdogDeps = defaultDeps): { stop(): void } | undefined {
  if (running && deps === defaultDeps) return running;
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
  const handle = { stop: () => deps.clearInterval(timer) };
  if (deps === defaultDeps) running = handle;
  return handle;
}

/** The part of pi's ExtensionAPI the input watch needs. */
interface RunEvents {
  on(event: "agent_start" | "agent_end", handler: () => void): void;
}

/**
 * In an RPC child (the parent identity is in `env`): when stdin ends while a run is in progress, the parent is
 * gone (it closes stdin only after a run ended), so every process of the task except this one is ended at
 * once; pi then shuts down and exits by itself. Registered before pi's own stdin listener, so it runs first.
 */
export function endTaskWhenInputEndsMidRun(pi: RunEvents, env: NodeJS.ProcessEnv = process.env, endTask: (taskId: string | undefined) => void = endTaskProcesses): void {
  if (!parseIdentity(env[PARENT_ENV])) return;
  let inRun = false;
  pi.on("agent_start", () => {
    inRun = true;
  });
  pi.on("agent_end", () => {
    inRun = false;
  });
  // Only an RPC child reads its stdin; a JSON child's is /dev/null and never read, so this never fires there.
  process.stdin.once("end", () => {
    if (inRun) endTask(env[TASK_MARKER_ENV]);
  });
}
