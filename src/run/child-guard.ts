/**
 * The last resort against orphans. pi exits on SIGTERM and SIGHUP without `session_shutdown` (it calls
 * `process.exit` from its own signal handlers), and `pi -p` dies of Ctrl+C's SIGINT without any handler at all;
 * children run in their own process groups, so the terminal's signal never reaches them. Every live child tree
 * is therefore killed synchronously from `process.on("exit")` and from our own SIGTERM, SIGHUP and SIGINT
 * listeners. A listener never keeps the process alive: after cleaning up, SIGINT (which pi does not handle) is
 * re-raised, and so is any signal ours is the only listener of, so pi still ends the way it would have.
 */
import { detectAppMode } from "../shared/mode.ts";
import { perProcess } from "../shared/per-process.ts";
import { killTreeNow } from "./process-tree.ts";

/** Per process, not per load: one set of listeners ends every child, whichever load of the extension started it. */
const guard = perProcess("child-guard", () => ({
  /** Live child pids and their task markers. */
  liveChildren: new Map<number, string | undefined>(),
  exitHooks: new Set<() => void>(),
  installed: false,
}));
const { liveChildren, exitHooks } = guard;

function killAllNow(): void {
  // Hooks first (they record what was in flight), then the kill, so nothing is lost and nothing survives.
  for (const hook of exitHooks) {
    try {
      hook();
    } catch {
      // an exiting process has nobody to report to
    }
  }
  for (const [pid, marker] of liveChildren) killTreeNow(pid, marker);
  liveChildren.clear();
}

/**
 * Runs `hook` synchronously when pi exits or receives SIGTERM/SIGHUP (before live children are killed).
 * Returns a function that removes it.
 */
export function onProcessExit(hook: () => void): () => void {
  install();
  exitHooks.add(hook);
  return () => exitHooks.delete(hook);
}

/**
 * For tests: forgets every exit hook, so fake runs a test left unfinished are not recorded (into a folder the test
 * already removed) when the test process exits.
 */
export function forgetExitHooksForTests(): void {
  exitHooks.clear();
}

export type GuardedSignal = "SIGTERM" | "SIGHUP" | "SIGINT";

function onSignal(signal: GuardedSignal): void {
  killAllNow();
  // pi ends itself on SIGTERM and SIGHUP (its own handlers call process.exit). It has no SIGINT handler, so
  // without us SIGINT would have killed it: re-raise it with our listener gone. Other libraries' exit
  // listeners (signal-exit and the like) only re-raise when they are alone, so counting listeners is not
  // enough to know whether somebody else will end the process.
  if (signal === "SIGINT" || process.listenerCount(signal) === 1) {
    process.off(signal, signalHandlers[signal]);
    process.kill(process.pid, signal);
  }
}

const signalHandlers: Record<GuardedSignal, () => void> = {
  SIGTERM: () => onSignal("SIGTERM"),
  SIGHUP: () => onSignal("SIGHUP"),
  SIGINT: () => onSignal("SIGINT"),
};

function install(): void {
  if (guard.installed) return;
  guard.installed = true;
  process.on("exit", killAllNow);
  process.on("SIGTERM", signalHandlers.SIGTERM);
  process.on("SIGHUP", signalHandlers.SIGHUP);
  // In the TUI Ctrl+C is a key, not a signal, and pi deliberately ignores SIGINT while suspended: guarding it
  // there would stop every subagent on a signal pi survives. Elsewhere SIGINT kills pi, so it is guarded.
  if (detectAppMode() !== "interactive") process.on("SIGINT", signalHandlers.SIGINT);
}

export function trackChild(pid: number, marker?: string): void {
  install();
  liveChildren.set(pid, marker);
}

export function untrackChild(pid: number): void {
  liveChildren.delete(pid);
}

export function trackedChildCount(): number {
  return liveChildren.size;
}
