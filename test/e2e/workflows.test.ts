/**
 * Workflows in print mode on the real pi: a call's own model and thinking (validated against pi's model
 * registry, `$models` respected, provenance `call`); a batch (`tasks`) whose parts overlap in time and whose one
 * result holds every part; a chain whose `{previous}` carries the step before's output, and one whose first
 * step fails and ends it. The parent is scripted through `@fake` directives in the
 * prompt; each child through directives inside its task.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, FAKE_REASONER, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();

/** A parent prompt whose first model call makes one subagent call with `args`; the next call quotes the result. */
function delegatingPrompt(args: Record<string, unknown>): string {
  const action: FakeAction = { toolCalls: [{ name: "subagent", arguments: args }] };
  return `Please delegate. ${fakeDirective([action])}`;
}

const childTask = (text: string, actions: FakeAction | FakeAction[]) => `${text} ${fakeDirective(actions)}`;
const sessionIdIn = (text: string) => /\[subagent session: ([0-9a-f-]{36})\]/.exec(text)?.[1];

function printPi(prompt: string) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], { env: suite.env.env, cwd: suite.env.workDir, timeoutMs: 90_000 });
}

/** What the parent's model was handed back by the subagent tool (the request after the tool call). */
function toolResultText(): string {
  const followUp = suite.fake.requests.filter((req) => !isWorkerRequest(req) && req.lastRole === "tool").at(-1);
  expect(followUp, "the parent got the tool's result").toBeDefined();
  return followUp!.lastText;
}

describe("a call's own model and thinking", () => {
  it("runs that task on the call's model and thinking, above the config, and says so in the result and record", async () => {
    suite.newEnv();
    suite.env.writeWorkFile(".pi/subagent-isolation.json", JSON.stringify({ worker: { model: "fake/fake-model", thinking: "low" } }));
    const result = await printPi(delegatingPrompt({ agent: "worker", model: `fake/${FAKE_REASONER}`, thinking: "high", task: childTask("Count.", { text: "CHEAP-ANSWER" }) }));
    expect(result.code, result.stderr).toBe(0);
    const child = suite.fake.requests.find(isWorkerRequest);
    expect(child?.model).toBe(FAKE_REASONER);
    expect(child?.reasoningEffort).toBe("high");
    const text = toolResultText();
    expect(text).toContain("CHEAP-ANSWER");
    expect(text).toContain(`[subagent model: fake/${FAKE_REASONER} (call) · thinking: high (call)]`);
    const id = sessionIdIn(text)!;
    const record = JSON.parse(readFileSync(join(suite.env.agentDir, "subagent-sessions", id, "record.json"), "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({ model: `fake/${FAKE_REASONER}`, modelSource: "call", thinking: "high", thinkingSource: "call" });
    const shown = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-result ${id}`], { env: suite.env.env, cwd: suite.env.workDir });
    expect(shown.stdout).toContain(`\nModel: fake/${FAKE_REASONER} (call) · thinking: high (call)\n`);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("refuses a model pi does not know, and one outside $models naming the allowed ones, starting no child", async () => {
    suite.newEnv();
    await printPi(delegatingPrompt({ agent: "worker", model: "fake/no-such-model", task: "Count." }));
    expect(toolResultText()).toContain('Unknown model "fake/no-such-model": give provider/id of a model pi knows');
    suite.env.writeWorkFile(".pi/subagent-isolation.json", JSON.stringify({ $models: ["fake/fake-model"] }));
    await printPi(delegatingPrompt({ agent: "worker", model: `fake/${FAKE_REASONER}`, task: "Count." }));
    expect(toolResultText()).toContain(`Model "fake/${FAKE_REASONER}" is not in the $models list of the project subagent-isolation.json; allowed: fake/fake-model.`);
    expect(suite.fake.requests.some(isWorkerRequest)).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("a batch and a chain in print mode", () => {
  it("runs a batch's parts side by side and returns one result holding both outputs", async () => {
    suite.newEnv();
    const firstRequestOf = (marker: string) => (req: { system: string; lastText: string; lastRole: string }) =>
      isWorkerRequest(req as never) && req.lastRole === "user" && req.lastText.includes(marker);
    // Each child's first request is held until both have arrived: the batch passes only if the parts overlap.
    suite.fake.on({
      when: (req) => firstRequestOf("PART-A")(req) || firstRequestOf("PART-B")(req),
      reply: async (req) => {
        await Promise.all(["PART-A", "PART-B"].map((marker) => suite.fake.waitForRequest(firstRequestOf(marker), 30_000, `the first request of ${marker}`)));
        return { text: req.lastText.includes("PART-A") ? "ANSWER-A" : "ANSWER-B" };
      },
    });
    const result = await printPi(delegatingPrompt({ tasks: [{ agent: "worker", task: "Look at PART-A." }, { agent: "worker", task: "Look at PART-B." }] }));
    expect(result.code, result.stderr).toBe(0);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("batch of 2: 2 succeeded");
    expect(text).toMatch(/### 1\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nANSWER-A\n\n\[subagent session: [0-9a-f-]{36}\]\n\n### 2\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nANSWER-B\n/);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("runs a chain's steps in order, each {previous} replaced by the step before's output", async () => {
    suite.newEnv();
    const result = await printPi(
      delegatingPrompt({ chain: [{ agent: "worker", task: childTask("Find it.", { text: "STEP-ONE-OUTPUT" }) }, { agent: "worker", task: "Review this: {previous} (end)" }] }),
    );
    expect(result.code, result.stderr).toBe(0);
    const workers = suite.fake.requests.filter(isWorkerRequest);
    expect(workers.map((req) => req.lastText.split(" @fake")[0])).toEqual(["Task: Find it.", "Task: Review this: STEP-ONE-OUTPUT (end)"]);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("chain of 2: 2 succeeded");
    expect(text).toMatch(/### Step 1\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nSTEP-ONE-OUTPUT\n[^]*### Step 2\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nok\n/);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("ends a chain at a first step that fails, says which step ended it, and never starts the next", async () => {
    suite.newEnv();
    const result = await printPi(
      delegatingPrompt({ chain: [{ agent: "worker", task: childTask("Fail.", { httpError: { status: 500, message: "upstream exploded" } }) }, { agent: "worker", task: "NEVER-RUN {previous}" }] }),
    );
    expect(result.code, result.stderr).toBe(0);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("chain of 2: ended at step 1 (worker failed); 1 step not run");
    expect(text).toMatch(/### Step 1\. worker failed \(taskId: [0-9a-f-]{36}\)\nSubagent worker failed\./);
    expect(text.endsWith("### Step 2. worker not run")).toBe(true);
    expect(suite.fake.requests.some((req) => req.lastText.includes("Task: NEVER-RUN"))).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
