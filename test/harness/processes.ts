/**
 * Finds the processes a test left behind. Every process a test starts carries the test's unique marker in its
 * environment, and children and grandchildren (a subagent's `pi`, its bash tool's `sleep`) inherit it, so
 * reading /proc/<pid>/environ finds them all without matching anything by name.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterEach, expect } from "vitest";
import { MARKER_VAR } from "./pi-env.ts";

export interface LeftoverProcess {
  pid: number;
  cmdline: string;
}

export function processesWithMarker(marker: string): LeftoverProcess[] {
  const needle = `${MARKER_VAR}=${marker}`;
  const found: LeftoverProcess[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (!environ.split("\0").includes(needle)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      // A zombie has exited; its parent just has not reaped it yet.
      if (/\) Z /.test(stat)) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
      found.push({ pid, cmdline });
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return found;
}

/**
 * The one re-checking loop of this file: `holds` every 100 ms (neither /proc nor a file emits an event) until it
 * is true (returns true) or `timeoutMs` has passed (returns false). Plain timers rather than vitest's `vi.waitFor`,
 * because bench/ and demo/ call these helpers outside vitest.
 */
async function recheckUntil(holds: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (holds()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits (re-checking on a short interval, bounded) until no process carries the marker, apart from the pids in
 * `except` (a pi that the test still drives). Returns what is left at the deadline.
 */
export async function waitForNoProcesses(
  marker: string,
  timeoutMs = 15_000,
  except: readonly number[] = [],
): Promise<LeftoverProcess[]> {
  let left: LeftoverProcess[] = [];
  await recheckUntil(
    () => (left = processesWithMarker(marker).filter((p) => !except.includes(p.pid))).length === 0,
    timeoutMs,
  );
  return left;
}

/**
 * Waits until a process carrying the marker runs a command line containing `text` (a child's bash tool has
 * really started that command: a file the command touches first appears a moment before the process does).
 */
export async function waitForProcess(marker: string, text: string, timeoutMs = 60_000): Promise<void> {
  if (!(await recheckUntil(() => processesWithMarker(marker).some((p) => p.cmdline.includes(text)), timeoutMs))) {
    throw new Error(`timed out after ${timeoutMs} ms waiting for a process running ${text}`);
  }
}

/** Kills whatever a failed test left behind, so one failure does not leak into the next test. */
export function killProcessesWithMarker(marker: string): void {
  for (const { pid } of processesWithMarker(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** Waits until a file exists (a test's sign that a child's command has started). */
export async function waitForFile(path: string, timeoutMs = 60_000): Promise<void> {
  if (!(await recheckUntil(() => existsSync(path), timeoutMs)))
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${path}`);
}

/**
 * Markers of fake children a unit test file starts: after each test, every one must have no process left (it is
 * killed anyway, so one leak does not spill into the next test). Call once at the top of a file; push the
 * marker of each child started.
 */
export function expectNoProcessesLeftAfterEach(): string[] {
  const markers: string[] = [];
  afterEach(async () => {
    for (const marker of markers.splice(0)) {
      const left = await waitForNoProcesses(marker, 5000);
      killProcessesWithMarker(marker);
      expect(left, "processes left behind").toEqual([]);
    }
  });
  return markers;
}
