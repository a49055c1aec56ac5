import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentDefinition } from "../../../src/agents/parse.ts";
import { createSessionFile } from "../../../src/run/session-files.ts";
import { newTaskId, type RunSettings } from "../../../src/shared/run-settings.ts";
import { readRecord, recordPath } from "../../../src/records/record-store.ts";
import type { PreparedRun } from "../../../src/tool/prepare-dispatch.ts";
import { trackedChildCount } from "../../../src/run/processes.ts";
import { HEARTBEAT_MS, runSync, type SyncProgress } from "../../../src/tool/run-sync.ts";
import { MARKER_VAR } from "../../harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../../harness/processes.ts";
import { BASH_TOOL_STREAM, HTTP_500_STREAM, sessionLine } from "../fixtures/pi-events.ts";

const SETTINGS: RunSettings = { activityTimeoutMs: 10_000, hardTimeoutMs: 0, maxConcurrent: 8, killGraceMs: 300 };
let agentDir: string;
let marker: string;

beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "pi-subagent-sync-"));
  marker = randomUUID();
});

afterEach(async () => {
  const left = await waitForNoProcesses(marker, 5000);
  killProcessesWithMarker(marker);
  rmSync(agentDir, { recursive: true, force: true });
  expect(left).toEqual([]);
});

const coder: AgentDefinition = {
  name: "coder",
  description: "codes",
  body: "",
  source: "builtin",
  filePath: "/a/coder.md",
};

/** A prepared run whose "pi" is `node -e <script>`. */
function preparedWith(script: string): PreparedRun & { released: number } {
  const taskId = newTaskId();
  const sessionFile = createSessionFile(agentDir, taskId, agentDir);
  const run = {
    taskId,
    agent: coder,
    task: "Say hello",
    resumed: false,
    sessionFile,
    cwd: agentDir,
    command: {
      command: process.execPath,
      args: ["-e", script],
      env: { PATH: process.env.PATH, [MARKER_VAR]: marker },
      mode: "json" as const,
      prompt: "Task: test",
    },
    resolved: { model: {}, thinking: {} },
    notes: [],
    released: 0,
    release: () => {
      run.released += 1;
    },
  };
  return run;
}

const printFile = (path: string, exitCode = 0) =>
  `process.stdout.write(require("node:fs").readFileSync(${JSON.stringify(path)})); process.exitCode = ${exitCode};`;

describe("runSync", () => {
  it("returns the result even when its record cannot be written, and says so on stderr", async () => {
    const prepared = preparedWith(printFile(BASH_TOOL_STREAM));
    // A folder where the record file should be: the atomic rename over it fails.
    mkdirSync(join(recordPath(agentDir, prepared.taskId), "in-the-way"), { recursive: true });
    const stderr: string[] = [];
    const spy = vi
      .spyOn(process.stderr, "write")
      .mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));
    try {
      const result = await runSync(prepared, { agentDir, settings: SETTINGS, parentSessionId: "p" });
      expect(result.text).toBe(`final answer here\n\n[subagent session: ${prepared.taskId}]`);
    } finally {
      spy.mockRestore();
    }
    expect(stderr.join("")).toMatch(
      new RegExp(
        `^subagent: could not save the record of coder task ${prepared.taskId} at .*record\\.json \\(.+\\)\\. The result is still returned to the model; only the record on disk \\(for /subagent-result\\) is missing\\.\n$`,
      ),
    );
  });

  it("returns the final answer with the session line and records the result before returning", async () => {
    const prepared = preparedWith(printFile(BASH_TOOL_STREAM));
    const progress: Array<[string, SyncProgress]> = [];
    const result = await runSync(prepared, {
      agentDir,
      settings: SETTINGS,
      parentSessionId: "parent-1",
      onProgress: (t, p) => progress.push([t, p]),
    });

    expect(result.text).toBe(`final answer here\n\n[subagent session: ${prepared.taskId}]`);
    expect(result.details).toMatchObject({
      taskId: prepared.taskId,
      sessionId: prepared.taskId,
      agent: "coder",
      task: "Say hello",
      status: "succeeded",
      exitCode: 0,
      stopReason: "stop",
      output: "final answer here",
      model: "fake/fake-model",
      usage: { turns: 2, input: 200, output: 40 },
    });
    expect(typeof result.details.durationMs).toBe("number");
    expect(prepared.released).toBe(1);

    const record = readRecord(agentDir, prepared.taskId);
    expect(record).toMatchObject({
      status: "succeeded",
      mode: "sync",
      delivered: true,
      parentSessionId: "parent-1",
      output: "final answer here",
    });
    expect(record?.deliveredAt).toBeTypeOf("number");

    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]![0]).toBe("coder: starting (00:00)");
    expect(progress[0]![1]).toMatchObject({
      taskId: prepared.taskId,
      agent: "coder",
      phase: "starting",
      usage: "0 turns/↑0/↓0/$0.0000",
    });
  });

  it("returns a diagnosis for a failed child, records it, and still releases the session", async () => {
    const prepared = preparedWith(`${printFile(HTTP_500_STREAM, 1)} process.stderr.write("Error: 500 boom\\n");`);
    const result = await runSync(prepared, { agentDir, settings: SETTINGS });
    expect(result.text).toBe(
      [
        "Subagent coder failed.",
        "- Stop reason: error",
        "- Error: 500 boom",
        `- Duration: 00:00 · Usage: 1 turn/↑0/↓0/$0.0000`,
        "- Stderr (last lines):",
        "Error: 500 boom",
        "",
        `[subagent session: ${prepared.taskId}]`,
      ].join("\n"),
    );
    expect(result.details).toMatchObject({
      status: "failed",
      exitCode: 1,
      stopReason: "error",
      errorMessage: "500 boom",
    });
    expect(readRecord(agentDir, prepared.taskId)?.status).toBe("failed");
    expect(prepared.released).toBe(1);
  });

  it("an abort (Esc in pi) ends the child and reports it as cancelled", async () => {
    const prepared = preparedWith(
      `process.stdout.write(${JSON.stringify(sessionLine("x"))} + "\\n"); setInterval(() => {}, 1e6);`,
    );
    const controller = new AbortController();
    const running = runSync(prepared, {
      agentDir,
      settings: SETTINGS,
      signal: controller.signal,
      onProgress: (_text, progress) => {
        if (progress.phase === "starting") setTimeout(() => controller.abort(), 100);
      },
    });
    const result = await running;
    expect(result.details).toMatchObject({ status: "cancelled", stopReason: "aborted" });
    expect(result.text).toContain("- Stop reason: aborted (the call was interrupted)");
    expect(readRecord(agentDir, prepared.taskId)).toMatchObject({ status: "cancelled", cancelledBy: "user" });
  });

  it("sends a heartbeat while nothing changes", async () => {
    // A clock that moves 11 s per reading: each 1 s tick of the ticker then sees a heartbeat interval pass.
    let clock = 0;
    const now = () => (clock += HEARTBEAT_MS + 1000);
    const prepared = preparedWith(
      `setTimeout(() => process.stdout.write(${JSON.stringify(sessionLine("x"))} + "\\n"), 2500);`,
    );
    const progress: SyncProgress[] = [];
    await runSync(prepared, {
      agentDir,
      settings: { ...SETTINGS, activityTimeoutMs: 0 },
      now,
      onProgress: (_t, p) => progress.push(p),
    });
    // The first report, then at least one heartbeat from the ticker before the child's only line arrived.
    expect(HEARTBEAT_MS).toBeLessThanOrEqual(30_000);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[1]!.phase).toBe("starting");
    expect(progress[1]!.elapsedMs).toBeGreaterThan(progress[0]!.elapsedMs);
  });
});

describe("runSync when the spawn itself throws", () => {
  it("releases the run lock and the temp prompt folder, and leaves no exit hook behind", async () => {
    const prepared = preparedWith("");
    // A NUL byte in an argument makes spawn throw synchronously, before any child exists.
    prepared.command = { ...prepared.command, args: ["-e", "1\u0000"] };
    await expect(runSync(prepared, { agentDir, settings: SETTINGS })).rejects.toThrow(/null bytes/);
    expect(prepared.released).toBe(1);
    expect(trackedChildCount()).toBe(0);
  });
});
