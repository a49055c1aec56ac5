/**
 * Processes we started and what they started: the tree ended, the leftovers swept by their task marker, and the guard that ends them at pi's exit.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { processesCarryingMarker } from "./parent-watchdog.ts";
import { isIdentityAlive, processStartTime, type ProcessIdentity } from "../shared/proc-identity.ts";
import { detectAppMode } from "../shared/pi-process.ts";
import { perProcess } from "../shared/this-process.ts";

/*
 * Ending a child and everything it started. A child pi runs in its own process group, but its bash tool puts
 * each command in a group of its own, so killing one group is not enough: we take a snapshot of all
 * descendants (from /proc on Linux) and signal each of them and each group they lead. SIGTERM first, so pi can
 * end its own tool processes; SIGKILL for whatever is still there after the grace period.
 */
export const DEFAULT_GRACE_MS = 5000;

const hasProc = (() => {
  try {
    readdirSync("/proc/self");
    return true;
  } catch {
    return false;
  }
})();

/** Parent pid of every process, read from /proc (Linux); empty elsewhere. */
function parentMap(): Map<number, number[]> {
  const children: Map<number, number[]> = new Map();
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue;
    }
    // The command name in parentheses may contain spaces; fields after the last ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    const list = children.get(ppid);
    if (list) list.push(Number(entry));
    else children.set(ppid, [Number(entry)]);
  }
  return children;
}

/** The pid and all its descendants (synchronous; Linux /proc). */
function descendantsOf(rootPid: number): number[] {
  if (!hasProc) return [rootPid];
  const children = parentMap();
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    found.push(pid);
    for (const child of children.get(pid) ?? []) queue.push(child);
  }
  return found;
}

/** Resident memory of a process and its descendants in KiB (Linux /proc), or undefined where it cannot be read. */
export function treeRssKiB(rootPid: number): number | undefined {
  if (!hasProc) return undefined;
  let total = 0;
  for (const pid of descendantsOf(rootPid)) {
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
      if (match) total += Number(match[1]);
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

function signalQuietly(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // already gone, or not ours
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signals every process of the snapshot and every process group they lead. Synchronous. */
function signalTree(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    signalQuietly(-pid, signal);
    signalQuietly(pid, signal);
  }
}

/**
 * The tree of `rootPid` plus every process carrying the task marker (a daemonized grandchild left the tree but
 * kept the marker in its environment), each with its own descendants.
 */
function taskProcesses(rootPid: number, marker?: string): number[] {
  const pids = new Set(descendantsOf(rootPid));
  if (marker) {
    for (const pid of processesCarryingMarker(marker)) {
      if (pids.has(pid)) continue;
      for (const descendant of descendantsOf(pid)) pids.add(descendant);
    }
  }
  return [...pids];
}

/** Synchronous SIGKILL of a whole tree: the last resort when the parent process itself is exiting. */
export function killTreeNow(rootPid: number, marker?: string): void {
  const first = taskProcesses(rootPid, marker);
  signalTree(first, "SIGKILL");
  // A command a shell was starting while the first pass looked (forked, not yet listed) survives its killed
  // parent: look once more for what carries the marker.
  if (marker)
    signalTree(
      taskProcesses(rootPid, marker).filter((pid) => !first.includes(pid)),
      "SIGKILL",
    );
}

export interface TreeTermination {
  /** SIGKILL everything of the tree now (skipping the rest of the grace period). */
  killNow: () => void;
  /**
   * Call when the root has exited: if nothing of the tree is left, the pending
   * SIGKILL is cancelled.
   */
  rootExited: () => void;
}

/**
 * The tree-kill package, required when first needed rather than imported: only a system without /proc needs it,
 * and Node's import of a CommonJS package would cost every first tool call a few milliseconds.
 */
export function treeKillLibrary(): typeof import("tree-kill") {
  return createRequire(import.meta.url)("tree-kill") as typeof import("tree-kill");
}

/**
 * SIGTERM to the tree, then SIGKILL to anything left after `graceMs`. The timer is unref'd, so it never keeps
 * pi alive, and it is cancelled once the whole tree is gone (so a recycled pid is never signalled).
 */
export function terminateTree(rootPid: number, graceMs: number = DEFAULT_GRACE_MS, marker?: string): TreeTermination {
  if (!hasProc) {
    // Without /proc, tree-kill walks the tree with ps.
    const treeKill = treeKillLibrary();
    treeKill(rootPid, "SIGTERM");
    const timer = setTimeout(() => treeKill(rootPid, "SIGKILL"), graceMs);
    timer.unref();
    return { killNow: () => treeKill(rootPid, "SIGKILL"), rootExited: () => {} };
  }
  let snapshot = taskProcesses(rootPid, marker);
  signalTree(snapshot, "SIGTERM");
  const killNow = () => {
    clearTimeout(timer);
    // Anything the tree started since the first snapshot is included too.
    const grown = [
      ...snapshot.flatMap((pid) => (isAlive(pid) ? descendantsOf(pid) : [])),
      ...(marker ? taskProcesses(rootPid, marker) : []),
    ];
    snapshot = [...new Set([...snapshot, ...grown])];
    signalTree(snapshot, "SIGKILL");
  };
  const timer = setTimeout(killNow, graceMs);
  timer.unref();
  return {
    killNow,
    rootExited: () => {
      // A stop that lands as the child's tool starts can miss what the tool spawns after the first snapshot;
      // the task marker finds those, so the kill timer stays armed while anything of the task still runs.
      const late = marker
        ? taskProcesses(rootPid, marker).filter((pid) => pid !== rootPid && !snapshot.includes(pid))
        : [];
      if (late.length > 0) {
        snapshot = [...snapshot, ...late];
        signalTree(late, "SIGTERM");
      }
      // With a marker the timer stays armed: a tool the child started in its last moments (after the snapshot,
      // or after the root exited) still gets its SIGKILL from killNow's fresh scan.
      if (!marker && !snapshot.some((pid) => pid !== rootPid && isAlive(pid))) clearTimeout(timer);
    },
  };
}

/*
 * What a child pi leaves behind when it exits: its bash tool's background commands (`sleep 305 &`, `nohup … &`)
 * outlive it whenever pi itself dies (`kill -9`, the OOM killer, a crash) and can outlive even a normal exit.
 * Each of them carries the task marker in its environment, so once the child is gone every process still
 * carrying it is ended: SIGTERM, then SIGKILL for what is left after the grace period. Only processes whose
 * /proc/<pid>/environ holds the marker are touched (never a name), and a pid is signalled only while its start
 * time is still the one seen when it was found, so a recycled pid is never hit.
 */
/** How often the sweep looks whether what it signalled is gone. */
const POLL_MS = 50;
/** How long the sweep waits after the SIGKILL for the kernel to finish the processes off. */
const AFTER_KILL_MS = 1000;

export interface SweepDeps {
  findMarked: (marker: string) => number[];
  startTime: (pid: number) => string | undefined;
  isAlive: (identity: ProcessIdentity) => boolean;
  signal: (target: number, signal: NodeJS.Signals) => void;
  wait: (ms: number) => Promise<void>;
  now: () => number;
}

const realDeps: SweepDeps = {
  findMarked: processesCarryingMarker,
  startTime: processStartTime,
  isAlive: isIdentityAlive,
  signal: signalQuietly,
  wait: (ms) =>
    new Promise((resolve) => {
      // Unref'd: a sweep never keeps pi alive.
      setTimeout(resolve, ms).unref();
    }),
  now: Date.now,
};

/**
 * Ends every process carrying `marker` (but `except`, normally this process), each with the group it leads.
 * Resolves with the pids it found once they are all gone, or after the SIGKILL's own wait if one survives it.
 */
export async function endLeftovers(
  marker: string | undefined,
  graceMs: number,
  except: readonly number[] = [process.pid],
  deps: SweepDeps = realDeps,
): Promise<number[]> {
  if (!marker) return [];
  const found = new Map<number, ProcessIdentity>();
  /** Finds what carries the marker now (a shell may fork while we look) and sends it `signal`. */
  const sweep = (signal: NodeJS.Signals) => {
    for (const pid of deps.findMarked(marker)) {
      if (except.includes(pid)) continue;
      const start = deps.startTime(pid);
      // A zombie is already dead; a pid seen before under another start time is a stranger now.
      if (start === undefined) continue;
      const known = found.get(pid);
      if (known && known.start !== start) continue;
      if (!known) found.set(pid, { pid, start });
    }
    for (const identity of found.values()) {
      if (!deps.isAlive(identity)) continue;
      deps.signal(-identity.pid, signal);
      deps.signal(identity.pid, signal);
    }
  };
  const allGone = () => [...found.values()].every((identity) => !deps.isAlive(identity));
  const waitUntilGone = async (ms: number) => {
    const deadline = deps.now() + ms;
    while (!allGone() && deps.now() < deadline) await deps.wait(POLL_MS);
  };
  sweep("SIGTERM");
  if (found.size === 0) return [];
  await waitUntilGone(graceMs);
  if (!allGone() || deps.findMarked(marker).some((pid) => !except.includes(pid) && !found.has(pid))) {
    sweep("SIGKILL");
    await waitUntilGone(AFTER_KILL_MS);
  }
  return [...found.keys()];
}

/*
 * The last resort against orphans. pi exits on SIGTERM and SIGHUP without `session_shutdown` (it calls
 * `process.exit` from its own signal handlers), and `pi -p` dies of Ctrl+C's SIGINT without any handler at all;
 * children run in their own process groups, so the terminal's signal never reaches them. Every live child tree
 * is therefore killed synchronously from `process.on("exit")` and from our own SIGTERM, SIGHUP and SIGINT
 * listeners. A listener never keeps the process alive: after cleaning up, SIGINT (which pi does not handle) is
 * re-raised, and so is any signal ours is the only listener of, so pi still ends the way it would have.
 * Not signal-exit 4.1.0: it passes our SIGINT and SIGTERM end-to-end tests, but as it acts on a signal only when
 * alone, beside pi's own SIGTERM/SIGHUP handlers the children would die at pi's final exit instead of at the
 * signal, and its import costs ~4.5 ms (median of 21 runs) on the first tool call, which tree-kill is spared too.
 */
/** Per process, not per load: one set of listeners ends every child, whichever load of the extension started it. */
const guard = perProcess("child-guard", () => ({
  /** Live child pids and their task markers. */
  liveChildren: new Map<number, string | undefined>(),
  /** Those of them still loading pi (no output yet): the one part of a child's life that keeps a core busy. */
  startingChildren: new Set<number>(),
  /** Told each time a child stops starting (its first output, or its end). */
  settledListeners: new Set<() => void>(),
  exitHooks: new Set<() => void>(),
  installed: false,
}));
const { liveChildren, startingChildren, settledListeners, exitHooks } = guard;

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
  startingChildren.clear();
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

type GuardedSignal = "SIGTERM" | "SIGHUP" | "SIGINT";

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

/** Tracks a live child to end at pi's exit; `starting`: it loads pi until `childStarted` (see `startingChildCount`). */
export function trackChild(pid: number, marker?: string, starting = false): void {
  install();
  liveChildren.set(pid, marker);
  if (starting) startingChildren.add(pid);
}

/** The child has written its first output: it is past loading pi. */
export function childStarted(pid: number): void {
  if (startingChildren.delete(pid)) settled();
}

export function untrackChild(pid: number): void {
  liveChildren.delete(pid);
  if (startingChildren.delete(pid)) settled();
}

function settled(): void {
  for (const listener of [...settledListeners]) listener();
}

/** Tracked children still loading pi: work started ahead waits for them (src/warm/warm-pool.ts). */
export function startingChildCount(): number {
  return startingChildren.size;
}

/** Calls `listener` each time a child stops starting; returns the function that stops it. */
export function onChildSettled(listener: () => void): () => void {
  settledListeners.add(listener);
  return () => settledListeners.delete(listener);
}

export function trackedChildCount(): number {
  return liveChildren.size;
}
