/**
 * Live children (issue 9), against the local fake model:
 *  (a) delegation wall time of `pi -p` with RPC children vs. JSON children (PI_SUBAGENT_CHILD_MODE=json), run as
 *      pairs in alternating order on the same machine; the figure is the median of the per-pair ratios
 *      RPC / JSON (target <= 1.00);
 *  (b) message latency: from a steer sent to a child busy in a bash tool (released at the same moment) to the
 *      child's next model request carrying the message; median.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { markedMessage } from "../src/run/rpc.ts";
import { startRun } from "../src/run/runner.ts";
import { sessionHeaderLine } from "../src/run/session-files.ts";
import { FakeModel, fakeDirective, messageText } from "../test/harness/fake-model.ts";
import { createPiEnv, EXTENSION_ENTRY, PI_CLI, runPi } from "../test/harness/pi-env.ts";
import { killProcessesWithMarker } from "../test/harness/processes.ts";
import { median } from "./startup.ts";
import { approveProjectAgent } from "../test/harness/approve-agent.ts";

const ROUNDS = Math.max(3, Number(process.env.BENCH_LIVE_ROUNDS ?? 5));
const WORKER = "---\nname: worker\ndescription: Bench worker\n---\nYou are the bench worker. Answer briefly.\n";
const ms = (value: number) => `${Math.round(value)} ms`;

export async function runLiveChildrenSection(): Promise<{ ok: boolean }> {
  const fake = await new FakeModel().start();
  const env = createPiEnv({ baseUrl: fake.baseUrl, warmChildren: true });
  // The person approved this project agent before (first-use trust): unapproved, print mode refuses it.
  approveProjectAgent(env, env.writeWorkFile(".pi/agents/worker.md", WORKER));
  try {
    // (a) paired delegation wall time
    const prompt = `Delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: `Bench. ${fakeDirective({ text: "CHILD-OK" })}` } }] }])}`;
    const once = async (mode: "rpc" | "json") => {
      const started = performance.now();
      const result = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
        env: env.env,
        cwd: env.workDir,
        timeoutMs: 120_000,
        extraEnv: { PI_SUBAGENT_CHILD_MODE: mode },
      });
      const elapsed = performance.now() - started;
      if (result.code !== 0 || !result.stdout.includes("CHILD-OK"))
        throw new Error(`${mode} delegation failed: exit ${result.code}, ${result.stderr.slice(0, 300)}`);
      return elapsed;
    };
    await once("rpc"); // warm-up: pi's transpile cache
    const rpc: number[] = [];
    const json: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which goes first so a drift in machine load does not favour one.
      const [first, second] = i % 2 === 0 ? (["rpc", "json"] as const) : (["json", "rpc"] as const);
      const a = await once(first);
      const b = await once(second);
      const r = first === "rpc" ? a : b;
      const j = first === "rpc" ? b : a;
      rpc.push(r);
      json.push(j);
      ratios.push(r / j);
    }
    const ratio = median(ratios);

    // (b) message -> next request latency
    const latencies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      fake.reset();
      const gate = join(env.root, `gate-${i}`);
      const release = join(env.root, `release-${i}`);
      const mark = `BENCH-MESSAGE-${i}`;
      fake.on({
        when: (r) => !r.messages.some((m) => m.role === "assistant"),
        reply: {
          toolCalls: [
            { name: "bash", arguments: { command: `touch ${gate}; while [ ! -f ${release} ]; do sleep 0.02; done` } },
          ],
        },
      });
      fake.on({ when: (r) => r.messages.some((m) => messageText(m).includes(mark)), reply: { text: "GOT-IT" } });
      const session = join(env.root, `bench-${i}.jsonl`);
      writeFileSync(
        session,
        sessionHeaderLine(`01a00000-0000-7000-8000-${String(i + 100).padStart(12, "0")}`, env.workDir, new Date()),
      );
      const handle = startRun({
        command: {
          command: process.execPath,
          args: [PI_CLI, "--mode", "rpc", "--session", session],
          env: { ...env.env, PI_SUBAGENT_DEPTH: "1" },
          mode: "rpc",
          prompt: "Task: bench",
        },
        cwd: env.workDir,
        activityTimeoutMs: 0,
        hardTimeoutMs: 0,
      });
      while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 10));
      const sentAt = Date.now();
      handle.steer(markedMessage(mark, "agent"));
      writeFileSync(release, "");
      const request = await fake.waitForRequest(
        (r) => r.messages.some((m) => messageText(m).includes(mark)),
        60_000,
        "the message",
      );
      latencies.push(request.at - sentAt);
      await handle.done;
    }
    const latency = median(latencies);
    const ok = ratio <= 1.0;
    console.log(`| figure | value |`);
    console.log(`|---|---|`);
    console.log(`| delegation, RPC children (median of ${ROUNDS}) | ${ms(median(rpc))} |`);
    console.log(`| delegation, JSON children (median of ${ROUNDS}) | ${ms(median(json))} |`);
    console.log(
      `| RPC / JSON, median of per-pair ratios (target <= 1.00) | ${ratio.toFixed(3)} ${ok ? "ok" : "MISSED"} |`,
    );
    console.log(
      `| message -> child's next request (median of ${ROUNDS}) | ${ms(latency)} (samples: ${latencies.map(ms).join(", ")}) |`,
    );
    return { ok };
  } finally {
    killProcessesWithMarker(env.marker);
    env.cleanup();
    await fake.stop();
  }
}
