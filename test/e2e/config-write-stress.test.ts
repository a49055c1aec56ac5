/**
 * Two separate node processes each apply 200 different model overrides to one subagent-isolation.json at the
 * same time, while this test process reads the file over and over. Afterwards all 400 entries (and the keys
 * that were there before) must be present, every read must have parsed as valid JSON, and no lock or temp
 * file may be left. It prints how long the 400 locked, atomic writes took.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MARKER_VAR, REPO_ROOT } from "../harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../harness/processes.ts";
import { THINKING_LEVELS } from "../../src/shared/thinking.ts";

const WORKER = join(REPO_ROOT, "test/e2e/fixtures/config-write-stress-worker.ts");
const WRITES_PER_PROCESS = 200;

interface WorkerReport {
  prefix: string;
  startedAt: number;
  finishedAt: number;
  slowestWriteMs: number;
}

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  done: Promise<{ code: number | null; report?: WorkerReport; stderr: string }>;
}

function startWorker(filePath: string, prefix: string, env: NodeJS.ProcessEnv): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, filePath, prefix, String(WRITES_PER_PROCESS)], {
    cwd: REPO_ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (stdout.includes("ready\n")) markReady();
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; report?: WorkerReport; stderr: string }>((resolve) => {
    child.on("close", (code) => {
      const last = stdout.trim().split("\n").pop() ?? "";
      let report: WorkerReport | undefined;
      try {
        report = JSON.parse(last) as WorkerReport;
      } catch {
        report = undefined;
      }
      resolve({ code, report, stderr });
    });
  });
  return { child, ready, done };
}

describe("config write-back under concurrent writers", () => {
  let dir: string | undefined;
  const marker = randomUUID();

  afterEach(() => {
    killProcessesWithMarker(marker);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps all 400 overrides from two processes and never shows a half-written file", async () => {
    dir = mkdtempSync(join(tmpdir(), "config-stress-"));
    const file = join(dir, "subagent-isolation.json");
    writeFileSync(
      file,
      JSON.stringify(
        { $schema: "https://example.com/schema.json", keep: { model: "k/k", extra: [1, 2] }, $models: ["k/k"] },
        null,
        2,
      ),
    );
    const env = { ...process.env, [MARKER_VAR]: marker };

    const workers = [startWorker(file, "alpha", env), startWorker(file, "beta", env)];
    await Promise.all(workers.map((worker) => worker.ready));
    const goAt = Date.now();
    for (const worker of workers) worker.child.stdin?.end("go\n");

    let running = true;
    const results = Promise.all(workers.map((worker) => worker.done)).finally(() => (running = false));
    let reads = 0;
    const badReads: string[] = [];
    while (running) {
      const text = readFileSync(file, "utf8");
      reads++;
      try {
        JSON.parse(text);
      } catch {
        badReads.push(text);
      }
      // Not a wait for an event: a reader 2 ms apart on purpose, so its reads interleave with the writers' writes.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const outcomes = await results;
    const wallMs = Date.now() - goAt;

    for (const outcome of outcomes) {
      expect(outcome.stderr).toBe("");
      expect(outcome.code).toBe(0);
    }
    expect(badReads).toEqual([]);
    expect(reads).toBeGreaterThan(10);

    const [alpha, beta] = outcomes.map((outcome) => outcome.report!);
    // The two writers really ran at the same time.
    expect(alpha!.startedAt).toBeLessThan(beta!.finishedAt);
    expect(beta!.startedAt).toBeLessThan(alpha!.finishedAt);

    const final = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(final.$schema).toBe("https://example.com/schema.json");
    expect(final.keep).toEqual({ model: "k/k", extra: [1, 2] });
    expect(final.$models).toEqual(["k/k"]);
    for (const prefix of ["alpha", "beta"]) {
      for (let i = 0; i < WRITES_PER_PROCESS; i++) {
        expect(final[`${prefix}-${i}`]).toEqual({
          model: `provider/${prefix}-model-${i}`,
          thinking: THINKING_LEVELS[i % THINKING_LEVELS.length],
        });
      }
    }
    expect(Object.keys(final)).toHaveLength(3 + 2 * WRITES_PER_PROCESS);
    expect(readdirSync(dir)).toEqual(["subagent-isolation.json"]);
    expect(await waitForNoProcesses(marker)).toEqual([]);

    console.log(
      `[config-write-stress] ${2 * WRITES_PER_PROCESS} locked atomic writes by 2 processes in ${wallMs} ms ` +
        `(${(wallMs / (2 * WRITES_PER_PROCESS)).toFixed(1)} ms a write overall; slowest single write ${Math.max(alpha!.slowestWriteMs, beta!.slowestWriteMs)} ms); ` +
        `${reads} concurrent reads, all valid JSON`,
    );
  });
});
