/**
 * Per-task budgets with the real pi and the fake model: a child that would call tools forever is stopped by its
 * turn budget with its partial output kept; a call's maxCost lowers a configured one and cannot raise it;
 * malformed values warn and are ignored.
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitForNoProcesses } from "../harness/processes.ts";
import { PiRpc, type RpcEvent } from "../harness/rpc.ts";
import { loopingTask } from "../harness/budget-fixtures.ts";

const suite = useE2eSuite();

function delegatingPrompt(calls: Array<Record<string, unknown>>): string {
  const action: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Please delegate. ${fakeDirective([action])}`;
}

function printPi(prompt: string, extraEnv: NodeJS.ProcessEnv = {}) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    extraEnv,
    timeoutMs: 90_000,
  });
}

describe("per-task budgets in print mode", () => {
  it("stops a looping child after its maxTurns (frontmatter) with the budget status and its partial output; no orphan", async () => {
    suite.newEnv({ workerFrontmatter: "maxTurns: 2" });
    const result = await printPi(delegatingPrompt([{ agent: "worker", task: loopingTask() }]));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Subagent worker stopped: turn budget 2 reached.");
    expect(result.stdout).toContain("LOOP-STEP-2");
    expect(result.stdout).toContain("- Budget: maxTurns 2");
    expect(suite.fake.requests.filter(isWorkerRequest)).toHaveLength(2);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("a call's lower maxCost wins; a higher one is capped at the configured limit and the result says so", {
    tags: ["slow"],
  }, async () => {
    suite.newEnv();
    suite.env.writeWorkFile(".pi/subagent-isolation.json", JSON.stringify({ worker: { maxCost: 0.5 } }));
    // 1000 input tokens at $1 per million: $0.001 a turn.
    const lower = await printPi(
      delegatingPrompt([{ agent: "worker", maxCost: 0.002, task: loopingTask({ input: 1000, output: 0 }) }]),
    );
    expect(lower.code, lower.stderr).toBe(0);
    expect(lower.stdout).toContain("Subagent worker stopped: cost budget $0.0020 reached.");
    expect(suite.fake.requests.filter(isWorkerRequest)).toHaveLength(2);

    const higher = await printPi(
      delegatingPrompt([{ agent: "worker", maxCost: 5, task: `Answer. ${fakeDirective({ text: "CAPPED-OK" })}` }]),
    );
    expect(higher.code, higher.stderr).toBe(0);
    expect(higher.stdout).toContain("CAPPED-OK");
    expect(higher.stdout).toContain(
      "[subagent budget: maxCost $0.50 (maxCost $5.00 was capped at the configured $0.50 (project); a call can only lower a budget)]",
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("malformed budget values in frontmatter, config and environment warn, naming the place, and are ignored", async () => {
    suite.newEnv({ workerFrontmatter: "maxTurns: lots" });
    suite.env.writeWorkFile(".pi/subagent-isolation.json", JSON.stringify({ worker: { maxCost: -1 } }));
    const result = await printPi(
      delegatingPrompt([{ agent: "worker", task: `Answer. ${fakeDirective({ text: "STILL-RUNS" })}` }]),
      {
        PI_SUBAGENT_MAX_TOKENS: "many",
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("STILL-RUNS");
    expect(result.stderr).toMatch(
      /agent file .*worker\.md: "maxTurns" must be a whole number of at least 1 \(got "lots"\)/,
    );
    expect(result.stderr).toMatch(
      /subagent-isolation\.json: "worker": "maxCost" must be a number greater than 0 \(got "-1"\)/,
    );
    expect(result.stderr).toContain('PI_SUBAGENT_MAX_TOKENS="many" must be a whole number of at least 1; ignored');
  });
});

describe("budgets in /subagent-config", () => {
  // Our own logic (a budget from the config); that RPC dialogs reach the client is subagent-config's contract test.
  it("sets maxTurns for an agent in the project file (RPC dialogs), and the next dispatch is stopped by it", async () => {
    suite.newEnv();
    const rpc = PiRpc.start(["-e", EXTENSION_ENTRY], { env: suite.env.env, cwd: suite.env.workDir });
    const answered = new Set<string>();
    const next = async (method: string, what: string): Promise<RpcEvent> => {
      const event = await rpc.waitForEvent(
        (e) => e.type === "extension_ui_request" && e.method === method && !answered.has(String(e.id)),
        60_000,
        what,
      );
      answered.add(String(event.id));
      return event;
    };
    const select = async (what: string, prefix: string): Promise<RpcEvent> => {
      const request = await next("select", what);
      const value = (request.options as string[]).find((option) => option.startsWith(prefix));
      expect(value, `${what}: ${(request.options as string[]).join(" | ")}`).toBeDefined();
      rpc.send({ type: "extension_ui_response", id: request.id, value });
      return request;
    };
    try {
      rpc.send({ type: "prompt", message: "/subagent-config worker" });
      await select("the field select", "budget — not set");
      const limits = await select("the limits", "maxTurns");
      expect(limits.options).toEqual(["maxTurns — not set", "maxTokens — not set", "maxCost — not set"]);
      const input = await next("editor", "the value input");
      rpc.send({ type: "extension_ui_response", id: input.id, value: "2" });
      await select("the write target", "project");
      const notice = await next("notify", "the notice");
      const configFile = join(suite.env.workDir, ".pi", "subagent-isolation.json");
      expect(notice.message).toBe(`worker: maxTurns 2 saved to ${configFile}.`);
      expect(JSON.parse(readFileSync(configFile, "utf8"))).toEqual({ worker: { maxTurns: 2 } });
      const fields = await next("select", "the field select again");
      expect(fields.options as string[]).toContain("budget — maxTurns 2 (project)");
      rpc.send({ type: "extension_ui_response", id: fields.id, cancelled: true });
      await rpc.waitForEvent((e) => e.type === "response" && e.command === "prompt", 30_000, "the command to finish");
    } finally {
      await rpc.stop();
    }
    const result = await printPi(delegatingPrompt([{ agent: "worker", task: loopingTask() }]));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Subagent worker stopped: turn budget 2 reached.");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
