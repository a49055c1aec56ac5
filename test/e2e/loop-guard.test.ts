/**
 * The loop guard with the real pi and the fake model: a child that repeats one bash call forever is nudged once
 * (the nudge reaches the child as a message) and then stopped, with its partial output and a reason that names
 * the call. The print-mode test is tagged `contract`: it relies on both pis' RPC mode announcing each tool call
 * with its arguments (`tool_execution_start`) and taking in a steer between turns. The TUI test (a background
 * task) checks our own envelope and card, on pi 1.x.
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const suite = useE2eSuite();

const NUDGE = "You are repeating the same tool call (bash echo LOOPING): 8 calls with the same arguments";
const REASON = "loop: bash echo LOOPING repeated 12 times in a row";
const RESULT_TITLE = /^## \[subagent-result\] worker /;
const isParent = (req: FakeRequest) => !isWorkerRequest(req);
const resultsIn = (req: FakeRequest) =>
  req.messages.filter((m) => m.role === "user" && RESULT_TITLE.test(messageText(m))).map(messageText);

/** The worker ignores everything, the nudge included, and calls the same command again, forever. */
function workerLoopsForever(): void {
  let step = 0;
  suite.fake.on({
    when: isWorkerRequest,
    reply: () => {
      step += 1;
      return { text: `LOOP-STEP-${step}`, toolCalls: [{ name: "bash", arguments: { command: "echo LOOPING" } }] };
    },
  });
}

describe("the loop guard in print mode", () => {
  it("nudges a child repeating one bash call at the 8th call and stops it at the 12th, keeping its partial output", {
    tags: ["contract", "slow"],
  }, async () => {
    suite.newEnv();
    workerLoopsForever();
    const delegate: FakeAction = {
      toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Check the build until it passes." } }],
    };
    const result = await runPi(["-e", EXTENSION_ENTRY, "-p", `Please delegate. ${fakeDirective([delegate])}`], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const worker = suite.fake.requests.filter(isWorkerRequest);
    // The nudge came in after the 8th call, before the 9th model call, and only once.
    const nudged = worker.filter((request) => request.lastRole === "user" && request.lastText.includes(NUDGE));
    expect(nudged.map((request) => worker.indexOf(request))).toEqual([8]);
    // Stopped as its 12th call started: at most the model call that was already under way follows.
    expect(worker.length).toBeGreaterThanOrEqual(12);
    expect(worker.length).toBeLessThanOrEqual(13);
    expect(result.stdout).toContain(`Subagent worker stopped: ${REASON}.`);
    expect(result.stdout).toContain("Partial output before it was stopped:");
    expect(result.stdout).toMatch(/LOOP-STEP-1[23]/);
    expect(result.stdout).toContain("- bash: echo LOOPING");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe.skipIf(skipTuiTests())("the loop guard in the TUI", () => {
  it("a background task that loops is stopped; its envelope and its card say loop and name the call", {
    tags: ["tui", "slow"],
  }, async () => {
    suite.newEnv();
    workerLoopsForever();
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
      reply: { text: "ok" },
    });
    const t = await suite.startTui();
    const first: FakeAction = {
      toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Check the build until it passes." } }],
    };
    await t.submit(`Delegate please. ${fakeDirective([first, { text: "Dispatched, waiting for results." }])}`);
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the stopped task's result",
    );
    const envelope = resultsIn(delivered)[0] ?? "";
    expect(envelope).toMatch(/^## \[subagent-result\] worker stopped \(taskId: /);
    expect(envelope).toContain(`- Status: stopped: ${REASON}`);
    expect(envelope).toContain("Partial output before it was stopped:");
    await t.waitForText(`Stopped: ${REASON}`, 30_000);
    const keep = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 20_000, keep)).toEqual([]);
    expect(await t.quit()).toBe(0);
  });
});
