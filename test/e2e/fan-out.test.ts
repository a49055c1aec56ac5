/**
 * The fan-out gate with the real pi: past the per-run cap a dispatch is refused with the stated message (print
 * mode, where nobody can be asked).
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();

function threeDispatches(): string {
  const action: FakeAction = {
    toolCalls: ["FAN-ONE", "FAN-TWO", "FAN-THREE"].map((text) => ({
      name: "subagent",
      arguments: { agent: "worker", task: `Say it. ${fakeDirective({ text })}` },
    })),
  };
  return `Please fan out. ${fakeDirective([action])}`;
}

/** Two batches of three in one message: the model fans out twice at once. */
function twoBatches(): string {
  const batch = (name: string) => ({
    name: "subagent",
    arguments: {
      tasks: [1, 2, 3].map((n) => ({ agent: "worker", task: `Say it. ${fakeDirective({ text: `${name}-${n}` })}` })),
    },
  });
  return `Please fan out twice. ${fakeDirective([{ toolCalls: [batch("BATCH-A"), batch("BATCH-B")] }])}`;
}

/** `pi -p` in a new set-up, with the per-run cap; it must exit 0. */
async function printWithCap(prompt: string, perTurn: number) {
  suite.newEnv();
  const result = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    extraEnv: { PI_SUBAGENT_MAX_TASKS_PER_TURN: String(perTurn) },
    timeoutMs: 120_000,
  });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe("the fan-out gate in print mode", () => {
  it("refuses the dispatch past PI_SUBAGENT_MAX_TASKS_PER_TURN with a message naming the cap", async () => {
    const result = await printWithCap(threeDispatches(), 2);
    expect(result.stdout).toContain(
      'Fan-out cap reached: at most 2 subagent tasks may be dispatched in one run of the main agent (PI_SUBAGENT_MAX_TASKS_PER_TURN or "$maxTasksPerTurn" in subagent-isolation.json), and this run has dispatched 2.',
    );
    expect(result.stdout).toContain("Nothing was dispatched.");
    expect(suite.fake.requests.filter(isWorkerRequest)).toHaveLength(2);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("two batches in one message past the cap: one runs whole, the other is refused with the true count", async () => {
    const result = await printWithCap(twoBatches(), 4);
    expect(result.stdout).toContain(
      'Fan-out cap reached: at most 4 subagent tasks may be dispatched in one run of the main agent (PI_SUBAGENT_MAX_TASKS_PER_TURN or "$maxTasksPerTurn" in subagent-isolation.json), this run has dispatched 3, and this call asks for 3 at once.',
    );
    const workers = suite.fake.requests.filter(isWorkerRequest);
    expect(workers).toHaveLength(3);
    // The three that ran are one batch's, whole.
    const said = workers.map((request) => (JSON.stringify(request).match(/BATCH-[AB]-\d/) ?? [""])[0]).sort();
    expect([
      ["BATCH-A-1", "BATCH-A-2", "BATCH-A-3"],
      ["BATCH-B-1", "BATCH-B-2", "BATCH-B-3"],
    ]).toContainEqual(said);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
