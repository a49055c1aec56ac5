/**
 * The cost of delegation itself, against the local fake model:
 *  (a) overhead: the median wall time of a delegated `pi -p` run, minus the median of the same parent calling a
 *      trivial tool and the median of the child's own `pi` run started directly (target <= 100 ms);
 *  (c) receipt latency: from the `subagent` tool call to its receipt in the TUI path (target: median <= 50 ms);
 *  (d) 8 concurrent delegations whose children take about 5 s each: all 8 results within 2x the time of one.
 * (c) and (d) drive the real tool, registry and runner in this process (real child pi processes); only pi's
 * TUI around them is left out.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";
import { readRunSettings } from "../src/shared/run-settings.ts";
import { BackgroundTasks, type ResultMessage } from "../src/tasks/background-tasks.ts";
import { sessionHeaderLine } from "../src/run/session-files.ts";
import { createBackgroundDispatcher } from "../src/pi/tool/background-dispatch.ts";
import { registerSubagentTool } from "../src/pi/tool/execute.ts";
import { FakeModel, fakeDirective } from "../test/harness/fake-model.ts";
import { createPiEnv, EXTENSION_ENTRY, PI_CLI, runPi, type PiEnv } from "../test/harness/pi-env.ts";
import { killProcessesWithMarker } from "../test/harness/processes.ts";
import { median } from "./startup.ts";
import { approveProjectAgent } from "../test/harness/approve-agent.ts";

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 10));
const WORKER_BODY = "You are the bench worker. Answer briefly.";
const WORKER = `---\nname: worker\ndescription: Bench worker\n---\n${WORKER_BODY}\n`;

const ms = (value: number) => `${Math.round(value)} ms`;

async function timed(
  label: string,
  run: () => Promise<{ code: number | null; stdout: string; stderr: string }>,
  expect: string,
): Promise<number> {
  const started = performance.now();
  const result = await run();
  const elapsed = performance.now() - started;
  if (result.code !== 0 || !result.stdout.includes(expect)) {
    throw new Error(
      `${label} failed: exit ${result.code}, stdout ${JSON.stringify(result.stdout.slice(0, 300))}, stderr ${JSON.stringify(result.stderr.slice(0, 300))}`,
    );
  }
  return elapsed;
}

/** (a): delegated run vs. trivial-tool parent + direct child. */
async function overhead(env: PiEnv): Promise<{ delegated: number; trivial: number; child: number; overhead: number }> {
  const childTask = `Bench task. ${fakeDirective({ text: "CHILD-OK" })}`;
  const delegatedPrompt = `Delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: childTask } }] }])}`;
  const trivialPrompt = `List. ${fakeDirective([{ toolCalls: [{ name: "ls", arguments: { path: "." } }] }])}`;
  const scratch = mkdtempSync(join(tmpdir(), "bench-child-"));
  const bodyFile = join(scratch, "agent-prompt.md");
  writeFileSync(bodyFile, WORKER_BODY);
  const opts = { env: env.env, cwd: env.workDir, timeoutMs: 60_000 };
  const samples = { delegated: [] as number[], trivial: [] as number[], child: [] as number[] };
  try {
    for (let i = 0; i < RUNS + 1; i++) {
      const sessionFile = join(scratch, `s${i}.jsonl`);
      writeFileSync(
        sessionFile,
        sessionHeaderLine(`01a00000-0000-7000-8000-${String(i).padStart(12, "0")}`, env.workDir, new Date()),
      );
      const d = await timed("delegated", () => runPi(["-e", EXTENSION_ENTRY, "-p", delegatedPrompt], opts), "CHILD-OK");
      const t = await timed(
        "trivial",
        () => runPi(["-e", EXTENSION_ENTRY, "-p", trivialPrompt], opts),
        "Tool results:",
      );
      const c = await timed(
        "child",
        () =>
          runPi(
            [
              "-e",
              EXTENSION_ENTRY,
              "--mode",
              "json",
              "-p",
              "--session",
              sessionFile,
              "--append-system-prompt",
              bodyFile,
              `Task: ${childTask}`,
            ],
            {
              ...opts,
              extraEnv: { PI_SUBAGENT_DEPTH: "1", PI_CURRENT_AGENT_NAME: "worker" },
            },
          ),
        "CHILD-OK",
      );
      if (i === 0) continue; // warm-up: pi's transpile cache
      samples.delegated.push(d);
      samples.trivial.push(t);
      samples.child.push(c);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const delegated = median(samples.delegated);
  const trivial = median(samples.trivial);
  const child = median(samples.child);
  return { delegated, trivial, child, overhead: delegated - trivial - child };
}

interface InProcessTool {
  execute: (task: string) => Promise<{ receiptMs: number; taskId: string }>;
  results: Map<string, { at: number; message: ResultMessage }>;
  waitForResults: (ids: string[], timeoutMs: number) => Promise<void>;
  tasks: BackgroundTasks;
}

/** The real `subagent` tool in its TUI (background) mode, driven in this process. */
function inProcessTool(env: PiEnv): InProcessTool {
  Object.assign(process.env, env.env);
  const results = new Map<string, { at: number; message: ResultMessage }>();
  const waiters = new Set<() => void>();
  const tasks = new BackgroundTasks({
    agentDir: env.agentDir,
    settings: readRunSettings(),
    send: (message) => {
      results.set(message.details.taskId, { at: performance.now(), message });
      for (const wake of waiters) wake();
    },
  });
  let tool: ToolDefinition | undefined;
  const pi = {
    registerTool: (definition: ToolDefinition) => (tool = definition),
    on: () => {},
  } as unknown as ExtensionAPI;
  registerSubagentTool(pi, {
    background: createBackgroundDispatcher(
      () => tasks,
      () => env.agentDir,
    ),
    appMode: "interactive",
    argv: [process.execPath, PI_CLI, "-e", EXTENSION_ENTRY],
  });
  const ctx = {
    cwd: env.workDir,
    hasUI: true,
    model: { provider: "fake", id: "fake-model" },
    sessionManager: { getSessionId: () => "bench-parent" },
    ui: { notify: () => {}, confirm: async () => true },
  } as unknown as ExtensionContext;
  return {
    tasks,
    results,
    execute: async (task) => {
      const started = performance.now();
      const result = await tool!.execute("call", { agent: "worker", task }, undefined, undefined, ctx);
      const receiptMs = performance.now() - started;
      const details = result.details as { taskId: string };
      return { receiptMs, taskId: details.taskId };
    },
    waitForResults: (ids, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (ids.every((id) => results.has(id))) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${ids.length} results`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

export async function runDispatchSection(): Promise<{ ok: boolean }> {
  const fake = await new FakeModel().start();
  const env = createPiEnv({ baseUrl: fake.baseUrl, warmChildren: true });
  // The person approved this project agent before (first-use trust): unapproved, print mode refuses it.
  approveProjectAgent(env, env.writeWorkFile(".pi/agents/worker.md", WORKER));
  const saved = { ...process.env };
  let ok = true;
  try {
    const a = await overhead(env);
    console.log(
      `(a) delegated pi -p: ${ms(a.delegated)}; same parent with a trivial tool: ${ms(a.trivial)}; child pi run directly: ${ms(a.child)}`,
    );
    console.log(
      `    extension overhead per delegation: ${ms(a.overhead)} (target <= 100 ms; medians of ${RUNS} interleaved runs)`,
    );
    if (a.overhead > 100) ok = false;

    const tool = inProcessTool(env);
    const receipts: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      const { receiptMs, taskId } = await tool.execute(`Quick ${i}. ${fakeDirective({ text: `R${i}` })}`);
      await tool.waitForResults([taskId], 60_000);
      if (i >= 2) receipts.push(receiptMs);
    }
    const receiptMedian = median(receipts);
    console.log(
      `(c) tool call to receipt: median ${receiptMedian.toFixed(1)} ms, max ${Math.max(...receipts).toFixed(1)} ms over ${receipts.length} dispatches (target median <= 50 ms)`,
    );
    if (receiptMedian > 50) ok = false;

    const CHILD_MODEL_MS = 4000;
    const slowTask = (n: string) => `Slow ${n}. ${fakeDirective({ text: `SLOW-${n}`, delayMs: CHILD_MODEL_MS })}`;
    // Medians over repeated rounds: one delegation alone (3 rounds), then 8 at once (2 rounds).
    const singles: number[] = [];
    for (let round = 0; round < 3; round++) {
      const oneStart = performance.now();
      const one = await tool.execute(slowTask(`single-${round}`));
      await tool.waitForResults([one.taskId], 120_000);
      singles.push(performance.now() - oneStart);
    }
    const eights: number[] = [];
    const startupMs: number[] = [];
    for (let round = 0; round < 2; round++) {
      const eightStart = performance.now();
      const firstRequest = fake.requests.length;
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push((await tool.execute(slowTask(`r${round}c${i}`))).taskId);
      await tool.waitForResults(ids, 180_000);
      eights.push(performance.now() - eightStart);
      // A child's start-up: from the batch's dispatch until its model request reached the fake model.
      startupMs.push(...fake.requests.slice(firstRequest).map((r) => r.at - (performance.timeOrigin + eightStart)));
    }
    const single = median(singles);
    const eight = median(eights);
    console.log(
      `(d) one ~5 s delegation: ${ms(single)} (median of ${singles.map(ms).join(", ")}); 8 at once: ${ms(eight)} (median of ${eights.map(ms).join(", ")}); ratio ${(eight / single).toFixed(2)}, target <= 2`,
    );
    console.log(
      `    each child's model call takes ${CHILD_MODEL_MS} ms; with 8 at once, a child's start-up until its first model request took median ${ms(median(startupMs))}, max ${ms(Math.max(...startupMs))} (8 pi start-ups sharing 2 cores), against ${ms(single - CHILD_MODEL_MS)} for one alone`,
    );
    if (eight / single > 2) ok = false;
  } finally {
    killProcessesWithMarker(env.marker);
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    env.cleanup();
    await fake.stop();
  }
  return { ok };
}
