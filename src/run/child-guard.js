// @ts-check
/**
 * The last resort against orphans. pi exits on SIGTERM and SIGHUP without `session_shutdown` (it calls
 * `process.exit` from its own signal handlers), and `pi -p` dies of Ctrl+C's SIGINT without any handler at all;
 * children run in their own process groups, so the terminal's signal never reaches them. Every live child tree
 * is therefore killed synchronously from `process.on("exit")` and from our own SIGTERM, SIGHUP and SIGINT
 * listeners. A listener never keeps the process alive: after cleaning up, SIGINT (which pi does not handle) is
 * re-raised, and so is any signal ours is the only listener of, so pi still ends the way it would have.
 */
import { detectAppMode } from "../shared/mode.js";
import { killTreeNow } from "./process-tree.js";

/**
 * Live child pids and their task markers.
 * @type {Map<number, string | undefined>}
 */
const liveChildren = new Map();
/** @type {Set<() => void>} */
const exitHooks = new Set();
let installed = false;

/** @returns {void} */
function killAllNow() {
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
 * @param {() => void} hook
 * @returns {() => void}
 */
export function onProcessExit(hook) {
  install();
  exitHooks.add(hook);
  return () => exitHooks.delete(hook);
}

/**
 * For tests: forgets every exit hook, so fake runs a test left unfinished are not recorded (into a folder the test
 * already removed) when the test process exits.
 * @returns {void}
 */
export function forgetExitHooksForTests() {
  exitHooks.clear();
}

/** @typedef {"SIGTERM" | "SIGHUP" | "SIGINT"} GuardedSignal */

/**
 * @param {GuardedSignal} signal
 * @returns {void}
 */
function onSignal(signal) {
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

/** @type {Record<GuardedSignal, () => void>} */
const signalHandlers = {
  SIGTERM: () => onSignal("SIGTERM"),
  SIGHUP: () => onSignal("SIGHUP"),
  SIGINT: () => onSignal("SIGINT"),
};

/** @returns {void} */
function install() {
  if (installed) return;
  installed = true;
  process.on("exit", killAllNow);
  process.on("SIGTERM", signalHandlers.SIGTERM);
  process.on("SIGHUP", signalHandlers.SIGHUP);
  // In the TUI Ctrl+C is a key, not a signal, and pi deliberately ignores SIGINT while suspended: guarding it
  // there would stop every subagent on a signal pi survives. Elsewhere SIGINT kills pi, so it is guarded.
  if (detectAppMode() !== "interactive") process.on("SIGINT", signalHandlers.SIGINT);
}

/**
 * @param {number} pid
 * @param {string} [marker]
 * @returns {void}
 */
export function trackChild(pid, marker) {
  install();
  liveChildren.set(pid, marker);
}

/**
 * @param {number} pid
 * @returns {void}
 */
export function untrackChild(pid) {
  liveChildren.delete(pid);
}

/** @returns {number} */
export function trackedChildCount() {
  return liveChildren.size;
}
