/**
 * What a child pi leaves behind when it exits: its bash tool's background commands (`sleep 305 &`, `nohup … &`)
 * outlive it whenever pi itself dies (`kill -9`, the OOM killer, a crash) and can outlive even a normal exit.
 * Each of them carries the task marker in its environment, so once the child is gone every process still
 * carrying it is ended: SIGTERM, then SIGKILL for what is left after the grace period. Only processes whose
 * /proc/<pid>/environ holds the marker are touched (never a name), and a pid is signalled only while its start
 * time is still the one seen when it was found, so a recycled pid is never hit.
 */
import { signalQuietly } from "./process-tree.ts";
import { isIdentityAlive, processStartTime } from "../shared/proc-identity.ts";
import type { ProcessIdentity } from "../shared/proc-identity.ts";
import { processesCarryingMarker } from "./task-marker.ts";

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
export async function endLeftovers(marker: string | undefined, graceMs: number, except: readonly number[] = [process.pid], deps: SweepDeps = realDeps): Promise<number[]> {
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
