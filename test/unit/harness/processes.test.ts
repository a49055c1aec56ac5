import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { MARKER_VAR } from "../../harness/pi-env.ts";
import {
  expectNoProcessesLeftAfterEach,
  waitForFile,
  waitForNoProcesses,
  waitForProcess,
} from "../../harness/processes.ts";

const markers = expectNoProcessesLeftAfterEach();
/** A deadline that is meant to pass: the tests below check what each helper does when it does. */
const SHORT_MS = 300;

/** A `sleep` carrying a fresh marker, as a child pi's bash tool would. */
function markedSleep(seconds: number): { marker: string; pid: number } {
  const marker = randomUUID();
  markers.push(marker);
  const child = spawn("sleep", [String(seconds)], { env: { ...process.env, [MARKER_VAR]: marker }, stdio: "ignore" });
  return { marker, pid: child.pid! };
}

describe("waitForFile", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("resolves once the file appears after the wait began, and names the path when it never does", async () => {
    dir = mkdtempSync(join(tmpdir(), "harness-processes-"));
    const file = join(dir, "started");
    const waiting = waitForFile(file, 10_000);
    writeFileSync(file, "");
    await expect(waiting).resolves.toBeUndefined();
    await expect(waitForFile(join(dir, "never"), SHORT_MS)).rejects.toThrow(
      `timed out after ${SHORT_MS} ms waiting for ${join(dir, "never")}`,
    );
  });
});

describe("waitForProcess and waitForNoProcesses", () => {
  it("find a marked process by its command line, and report what still runs at the deadline", async () => {
    const { marker, pid } = markedSleep(30);
    await waitForProcess(marker, "sleep 30", 10_000);
    await expect(waitForProcess(marker, "sleep 31", SHORT_MS)).rejects.toThrow(
      `timed out after ${SHORT_MS} ms waiting for a process running sleep 31`,
    );

    expect(await waitForNoProcesses(marker, SHORT_MS)).toEqual([{ pid, cmdline: "sleep 30" }]);
    expect(await waitForNoProcesses(marker, SHORT_MS, [pid])).toEqual([]);
    process.kill(pid, "SIGKILL");
    expect(await waitForNoProcesses(marker, 10_000)).toEqual([]);
  });
});
