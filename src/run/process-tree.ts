/**
 * Ending a child and everything it started. A child pi runs in its own process group, but its bash tool puts
 * each command in a group of its own, so killing one group is not enough: we take a snapshot of all
 * descendants (from /proc on Linux) and signal each of them and each group they lead. SIGTERM first, so pi can
 * end its own tool processes; SIGKILL for whatever is still there after the grace period.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { processesCarryingMarker } from "./task-marker.ts";

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
export function descendantsOf(rootPid: number): number[] {
  if (!hasProc) return [rootPid];
  const children = parentMap();
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = (queue.shift() as number);
    found.push(pid);
    for (const child of children.get(pid) ?? []) queue.push(child);
  }
  return found;
}

export function signalQuietly(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // already gone, or not ours
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signals every process of the snapshot and every process group they lead. Synchronous. */
export function signalTree(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    signalQuietly(-pid, signal);
    signalQuietly(pid, signal);
  }
}

/**
 * The tree of `rootPid` plus every process carrying the task marker (a daemonized grandchild left the tree but
 * kept the marker in its environment), each with its own descendants.
 */
export function taskProcesses(rootPid: number, marker?: string): number[] {
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
  if (marker) signalTree(taskProcesses(rootPid, marker).filter((pid) => !first.includes(pid)), "SIGKILL");
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
  return (createRequire(import.meta.url)("tree-kill") as typeof import("tree-kill"));
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
    const grown = [...snapshot.flatMap((pid) => (isAlive(pid) ? descendantsOf(pid) : [])), ...(marker ? taskProcesses(rootPid, marker) : [])];
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
      const late = marker ? taskProcesses(rootPid, marker).filter((pid) => pid !== rootPid && !snapshot.includes(pid)) : [];
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
