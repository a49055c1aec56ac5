import { describe, expect, it } from "vitest";
import { admitAll, type AdmittedPart } from "../../../../src/pi/tool/execute.ts";
import type { SubagentParams } from "../../../../src/tool/schema.ts";
import { FanOutGate } from "../../../../src/budget/fan-out.ts";

const nobody = { hasUI: false } as never;

describe("admitAll: a refused part starts none, and the parts before it give back their fan-out places", () => {
  it("withdraws every part admitted before the refusal", async () => {
    const withdrawn: string[] = [];
    const admit = async (params: SubagentParams): Promise<AdmittedPart> => {
      if (params.agent === "refused") throw new Error("Fan-out cap reached");
      return {
        agent: params.agent ?? "",
        task: params.task ?? "",
        prepare: () => {
          throw new Error("not started");
        },
        withdraw: () => withdrawn.push(params.agent ?? ""),
      };
    };
    const parts = [
      { agent: "a", task: "1" },
      { agent: "b", task: "2" },
      { agent: "refused", task: "3" },
      { agent: "c", task: "4" },
    ];
    await expect(admitAll("batch", parts, { reserve: async () => undefined, admit })).rejects.toThrow(/Part 3/);
    expect(withdrawn).toEqual(["a", "b"]);
  });
});

describe("admitAll: a batch takes its fan-out places at once", () => {
  /** A batch through one gate: places reserved together, each part admitted after an await (as trust and config do). */
  const batchThrough = (gate: FanOutGate, size: number, name: string) =>
    admitAll(
      "batch",
      Array.from({ length: size }, (_, index) => ({ agent: name, task: `${index}` })),
      {
        reserve: async (count) => {
          const refusal = await gate.admit({ perTurn: 16, inFlight: 100 }, nobody, false, count);
          if (refusal) throw new Error(refusal);
          return Array.from({ length: count }, () => {
            let given = false;
            return () => {
              if (!given) gate.withdraw();
              given = true;
            };
          });
        },
        admit: async (params, place) => {
          await new Promise((resolve) => setImmediate(resolve));
          return {
            agent: params.agent ?? "",
            task: params.task ?? "",
            prepare: () => {
              throw new Error("not started");
            },
            ...(place ? { withdraw: place } : {}),
          };
        },
      },
    );

  it("four batches of 16 sent side by side: the first is admitted whole, the other three are refused with the true count", async () => {
    const gate = new FanOutGate({ inFlight: () => [] });
    const outcomes = await Promise.allSettled(
      ["one", "two", "three", "four"].map((name) => batchThrough(gate, 16, name)),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "rejected", "rejected"]);
    expect((outcomes[0] as PromiseFulfilledResult<AdmittedPart[]>).value).toHaveLength(16);
    for (const outcome of outcomes.slice(1)) {
      expect(String((outcome as PromiseRejectedResult).reason)).toContain(
        "this run has dispatched 16, and this call asks for 16 at once.",
      );
    }
  });

  it("a part refused after the reservation gives every place back: the next batch of the run fits whole", async () => {
    const gate = new FanOutGate({ inFlight: () => [] });
    const refused = admitAll(
      "batch",
      [
        { agent: "a", task: "1" },
        { agent: "refused", task: "2" },
        { agent: "c", task: "3" },
      ],
      {
        reserve: async (count) => {
          await gate.admit({ perTurn: 16, inFlight: 100 }, nobody, false, count);
          return Array.from({ length: count }, () => () => gate.withdraw());
        },
        admit: async (params, place) => {
          if (params.agent === "refused") throw new Error("Unknown agent");
          return {
            agent: params.agent ?? "",
            task: params.task ?? "",
            prepare: () => {
              throw new Error("not started");
            },
            ...(place ? { withdraw: place } : {}),
          };
        },
      },
    );
    await expect(refused).rejects.toThrow(/Part 2 \(refused\)/);
    await expect(batchThrough(gate, 16, "next")).resolves.toHaveLength(16);
  });
});
