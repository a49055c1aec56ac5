/**
 * The last resort against orphans. pi exits on SIGTERM and SIGHUP without `session_shutdown` (it calls
 * `process.exit` from its own signal handlers), so every live child tree is also killed synchronously from
 * `process.on("exit")` and from our own signal listeners. A listener never keeps the process alive: when ours
 * is the only one for a signal (pi not running its handlers), it re-raises the signal after cleaning up.
 */
import { killTreeNow } from "./process-tree.ts";

const liveChildren = new Set<number>();
const exitHooks = new Set<() => void>();
let installed = false;

function killAllNow(): void {
  // Hooks first (they record what was in flight), then the kill, so nothing is lost and nothing survives.
  for (const hook of exitHooks) {
    try {
      hook();
    } catch {
      // an exiting process has nobody to report to
    }
  }
  for (const pid of liveChildren) killTreeNow(pid);
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

function onSignal(signal: "SIGTERM" | "SIGHUP"): void {
  killAllNow();
  if (process.listenerCount(signal) === 1) {
    process.off(signal, signalHandlers[signal]);
    process.kill(process.pid, signal);
  }
}

const signalHandlers: Record<"SIGTERM" | "SIGHUP", () => void> = {
  SIGTERM: () => onSignal("SIGTERM"),
  SIGHUP: () => onSignal("SIGHUP"),
};

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", killAllNow);
  process.on("SIGTERM", signalHandlers.SIGTERM);
  process.on("SIGHUP", signalHandlers.SIGHUP);
}

export function trackChild(pid: number): void {
  install();
  liveChildren.add(pid);
}

export function untrackChild(pid: number): void {
  liveChildren.delete(pid);
}

export function trackedChildCount(): number {
  return liveChildren.size;
}
