import { describe, expect, it } from "vitest";
import {
  FanOutGate,
  fanOutHit,
  fanOutQuestion,
  fanOutRefusal,
  resolveFanOutLimits,
} from "../../../src/budget/fan-out.ts";
import { parseConfigLayer } from "../../../src/config/load.ts";

const running = [
  {
    taskId: "01912345-6789-7abc-8def-0123456789ab",
    agent: "worker",
    task: "Count the files",
    status: "running" as const,
  },
];

function ui(answers: boolean[]) {
  const asked: string[] = [];
  return {
    asked,
    ctx: {
      hasUI: true,
      ui: {
        confirm: async (title: string, message: string) => (
          asked.push(`${title} ${message}`), answers.shift() ?? false
        ),
      },
    } as never,
  };
}

describe("fan-out caps", () => {
  it("defaults to 16 per run and 32 in flight; env beats the user file; a project file only lowers them; bad values warn", () => {
    expect(resolveFanOutLimits({}, {}).limits).toEqual({ perTurn: 16, inFlight: 32 });
    // A project cannot raise the person's cap (4 over the user's 3), only lower it (2 under the default 32).
    const files = { user: { maxTasksPerTurn: 3, maxTasksInFlight: 5 }, project: { maxTasksPerTurn: 4 } };
    expect(resolveFanOutLimits({}, files).limits).toEqual({ perTurn: 3, inFlight: 5 });
    expect(resolveFanOutLimits({}, { project: { maxTasksPerTurn: 40, maxTasksInFlight: 2 } }).limits).toEqual({
      perTurn: 16,
      inFlight: 2,
    });
    const env = resolveFanOutLimits(
      { PI_SUBAGENT_MAX_TASKS_PER_TURN: "2", PI_SUBAGENT_MAX_TASKS_IN_FLIGHT: "0" },
      files,
    );
    expect(env.limits).toEqual({ perTurn: 2, inFlight: 5 });
    expect(env.warnings).toEqual([
      'pi-subagent-dispatch: PI_SUBAGENT_MAX_TASKS_IN_FLIGHT="0" must be a whole number of at least 1; ignored',
    ]);
    const layer = parseConfigLayer(
      JSON.stringify({ $maxTasksPerTurn: 6, $maxTasksInFlight: "lots" }),
      "project",
      "/p/x.json",
    );
    expect(layer.fanOut).toEqual({ maxTasksPerTurn: 6 });
    expect(layer.warnings).toEqual([
      'pi-subagent-dispatch: /p/x.json: "$maxTasksInFlight" must be a whole number of at least 1; ignored',
    ]);
  });

  it("refuses past a cap, naming it and what is in flight", () => {
    expect(fanOutHit({ perTurn: 2, inFlight: 5 }, 1, 4)).toBeUndefined();
    expect(fanOutHit({ perTurn: 2, inFlight: 5 }, 2, 0)).toEqual({ cap: "turn", limit: 2, dispatched: 2, asked: 1 });
    expect(fanOutHit({ perTurn: 9, inFlight: 5 }, 2, 5)).toEqual({
      cap: "in-flight",
      limit: 5,
      dispatched: 2,
      asked: 1,
    });
    const text = fanOutRefusal({ cap: "turn", limit: 2, dispatched: 2, asked: 1 }, running, 1);
    expect(text.split("\n")).toEqual([
      'Fan-out cap reached: at most 2 subagent tasks may be dispatched in one run of the main agent (PI_SUBAGENT_MAX_TASKS_PER_TURN or "$maxTasksPerTurn" in subagent-isolation.json), and this run has dispatched 2.',
      "In flight now: 2 tasks.",
      "- 01912345-6789-7abc-8def-0123456789ab (worker, running): Count the files",
      "- 1 blocking call of this run",
      "Nothing was dispatched. Wait for the results in flight, or cancel tasks you no longer need, and combine the remaining work into fewer tasks.",
    ]);
  });

  it("a call that asks for several places at once fits only whole, and its refusal says how many it asked for", () => {
    expect(fanOutHit({ perTurn: 16, inFlight: 32 }, 0, 0, 16)).toBeUndefined();
    expect(fanOutHit({ perTurn: 16, inFlight: 32 }, 1, 0, 16)).toEqual({
      cap: "turn",
      limit: 16,
      dispatched: 1,
      asked: 16,
    });
    expect(fanOutHit({ perTurn: 64, inFlight: 32 }, 0, 20, 16)).toEqual({
      cap: "in-flight",
      limit: 32,
      dispatched: 0,
      asked: 16,
    });
    expect(fanOutRefusal({ cap: "turn", limit: 16, dispatched: 1, asked: 16 }, [], 0).split("\n")[0]).toBe(
      'Fan-out cap reached: at most 16 subagent tasks may be dispatched in one run of the main agent (PI_SUBAGENT_MAX_TASKS_PER_TURN or "$maxTasksPerTurn" in subagent-isolation.json), this run has dispatched 1, and this call asks for 16 at once.',
    );
    expect(fanOutRefusal({ cap: "in-flight", limit: 32, dispatched: 0, asked: 16 }, [], 0).split("\n")[0]).toBe(
      'Fan-out cap reached: at most 32 subagent tasks may be in flight (running or queued) at once (PI_SUBAGENT_MAX_TASKS_IN_FLIGHT or "$maxTasksInFlight" in subagent-isolation.json), and this call asks for 16 at once.',
    );
  });

  it("counts per run, asks the person once per run, and a yes lifts the caps until the run ends", async () => {
    const gate = new FanOutGate({ inFlight: () => [] });
    const limits = { perTurn: 1, inFlight: 10 };
    const yes = ui([true]);
    expect(await gate.admit(limits, yes.ctx, true)).toBeUndefined();
    expect(await gate.admit(limits, yes.ctx, true)).toBeUndefined();
    expect(await gate.admit(limits, yes.ctx, true)).toBeUndefined();
    expect(yes.asked).toHaveLength(1);

    gate.runStarted();
    const no = ui([false, true]);
    expect(await gate.admit(limits, no.ctx, true)).toBeUndefined();
    expect(await gate.admit(limits, no.ctx, true)).toMatch(/^Fan-out cap reached: at most 1 subagent tasks/);
    expect(await gate.admit(limits, no.ctx, true)).toMatch(/^Fan-out cap reached/);
    expect(no.asked).toHaveLength(1);

    gate.runStarted();
    const nobody = ui([true]);
    expect(await gate.admit(limits, nobody.ctx, false)).toBeUndefined();
    expect(await gate.admit(limits, nobody.ctx, false)).toMatch(/^Fan-out cap reached/);
    expect(nobody.asked).toHaveLength(0);
  });

  it("a batch refused part-way gives back what its earlier parts took: the next batch of the run is not starved", async () => {
    const gate = new FanOutGate({ inFlight: () => [] });
    const limits = { perTurn: 16, inFlight: 100 };
    const nobody = ui([]);
    // A first batch: 10 parts admitted, then one refused for another reason; none starts, so all 10 are given back.
    for (let i = 0; i < 10; i++) expect(await gate.admit(limits, nobody.ctx, false)).toBeUndefined();
    for (let i = 0; i < 10; i++) gate.withdraw();
    // A second batch of 16 in the same run fits whole.
    for (let i = 0; i < 16; i++) expect(await gate.admit(limits, nobody.ctx, false)).toBeUndefined();
    expect(await gate.admit(limits, nobody.ctx, false)).toMatch(/this run has dispatched 16\./);
    gate.withdraw();
    gate.runStarted();
    gate.withdraw(); // never below zero
    expect(await gate.admit({ perTurn: 1, inFlight: 100 }, nobody.ctx, false)).toBeUndefined();
  });
});

describe("FanOutGate: blocking calls", () => {
  it("counts a blocking call as in flight until it ends, once however often its end is called", async () => {
    const gate = new FanOutGate({ inFlight: () => [] });
    const limits = { perTurn: 16, inFlight: 1 };
    const end = gate.beginBlockingRun();
    expect(await gate.admit(limits, { hasUI: false } as never, false)).toContain("- 1 blocking call of this run");
    end();
    end();
    expect(await gate.admit(limits, { hasUI: false } as never, false)).toBeUndefined();
    gate.beginBlockingRun();
    expect(await gate.admit(limits, { hasUI: false } as never, false)).toContain("In flight now: 1 task");
  });
});

describe("the question to the person", () => {
  it("counts tasks in the singular for a limit of one", () => {
    expect(fanOutQuestion({ cap: "turn", limit: 1 })).toBe(
      "The model wants to dispatch more than 1 subagent task in this run. Allow more until this run ends?",
    );
    expect(fanOutQuestion({ cap: "in-flight", limit: 3 })).toBe(
      "The model wants more than 3 subagent tasks in flight at once. Allow more until this run ends?",
    );
  });
});
