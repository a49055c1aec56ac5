/**
 * Budgets when the provider's usage report is broken (issue 28, item 9), with the real pi and the fake model:
 * a negative, non-numeric or missing usage is treated as unknown, the tokens are estimated from the sizes of
 * the messages, `maxTokens` still trips (and the result says the usage was estimated), `maxCost` stops a run
 * whose cost cannot be known, and `maxTurns` reports exactly the turns it allowed.
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();

function delegatingPrompt(args: Record<string, unknown>): string {
  const action: FakeAction = { toolCalls: [{ name: "subagent", arguments: { agent: "worker", ...args } }] };
  return `Please delegate. ${fakeDirective([action])}`;
}

function printPi(prompt: string) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 90_000,
  });
}

/** A child that would loop for 30 steps, each printing 20,000 characters (about 5,000 tokens of context). */
function floodingLoop(badUsage: FakeAction["badUsage"]): string {
  const steps: FakeAction[] = Array.from({ length: 30 }, (_, index) => ({
    text: `USAGE-STEP-${index + 1}`,
    toolCalls: [{ name: "bash", arguments: { command: "head -c 20000 /dev/zero | tr '\\0' x" } }],
    badUsage,
  }));
  return `Loop. ${fakeDirective(steps)}`;
}

const BAD_REPORTS: Array<[string, FakeAction["badUsage"]]> = [
  ["negative", { prompt_tokens: -5000, completion_tokens: -100, total_tokens: -5100 }],
  ["non-numeric", { prompt_tokens: "lots", completion_tokens: "some", total_tokens: "many" }],
  ["missing", "none"],
];

describe("budgets with a broken usage report", () => {
  it.each(BAD_REPORTS)(
    "%s usage: maxTokens trips on the estimate, and the result says the usage was estimated",
    async (_, badUsage) => {
      suite.newEnv();
      const result = await printPi(delegatingPrompt({ maxTokens: 12000, task: floodingLoop(badUsage) }));
      expect(result.code, result.stderr).toBe(0);
      const told =
        suite.fake.requests.find((r) => r.lastRole === "tool" && r.lastText.includes("Subagent worker"))?.lastText ??
        "";
      expect(told).toContain("Subagent worker stopped: token budget 12000 reached.");
      expect(told).toMatch(
        /- Usage note: the provider reported no usable usage for \d+ of \d+ turns; their tokens are estimated from the text sizes/,
      );
      const workerCalls = suite.fake.requests.filter(isWorkerRequest).length;
      expect(workerCalls).toBeGreaterThanOrEqual(2);
      expect(workerCalls).toBeLessThanOrEqual(4);
      expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
    },
  );

  it("missing usage: maxCost stops the run at its first turn that goes on, since its cost cannot be known", async () => {
    suite.newEnv();
    const result = await printPi(delegatingPrompt({ maxCost: 0.5, task: floodingLoop("none") }));
    expect(result.code, result.stderr).toBe(0);
    const told =
      suite.fake.requests.find((r) => r.lastRole === "tool" && r.lastText.includes("Subagent worker"))?.lastText ?? "";
    expect(told).toContain(
      "Subagent worker stopped: cost budget $0.50 cannot be checked: the provider reported no usable usage.",
    );
    expect(suite.fake.requests.filter(isWorkerRequest)).toHaveLength(1);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("maxTurns holds with a broken report too, and the result counts the turns as the budget does", async () => {
    suite.newEnv();
    const result = await printPi(
      delegatingPrompt({ maxTurns: 3, task: floodingLoop({ prompt_tokens: -1, completion_tokens: -1 }) }),
    );
    expect(result.code, result.stderr).toBe(0);
    const told =
      suite.fake.requests.find((r) => r.lastRole === "tool" && r.lastText.includes("Subagent worker"))?.lastText ?? "";
    expect(told).toContain("Subagent worker stopped: turn budget 3 reached.");
    expect(suite.fake.requests.filter(isWorkerRequest)).toHaveLength(3);
    expect(told).toContain("Usage: 3 turns/");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
