import { describe, expect, it } from "vitest";
import { BudgetWatch } from "../../../src/run/stop-sequence.ts";
import { budgetHitText } from "../../../src/budget/limits.ts";
import { applyLine, initialRunState } from "../../../src/run/event-reducer.ts";
import { LineSplitter } from "../../../src/run/rpc.ts";
import { assistantEnd, userEnd } from "../fixtures/pi-events.ts";

/** Feeds the lines to a fresh state and the watch, and returns the first budget hit. */
function firstHit(watch: BudgetWatch, lines: string[]) {
  const state = initialRunState(0);
  let hit: ReturnType<BudgetWatch["afterLine"]>;
  const splitter = new LineSplitter((line) => {
    applyLine(state, line, 1);
    hit ??= watch.afterLine(state);
  });
  splitter.push(`${lines.join("\n")}\n`);
  splitter.end();
  return hit;
}

const step = (usage?: { input: number; output: number; cost?: number }) =>
  assistantEnd({ text: "step", toolCalls: [{ name: "bash", arguments: { command: "ls" } }], usage });

describe("BudgetWatch with unusable usage reports", () => {
  it("trips maxTokens on the estimate when the reports are all zero", () => {
    const big = "x".repeat(40_000);
    expect(firstHit(new BudgetWatch({ maxTokens: 5000 }), [userEnd(big), step()])).toEqual({
      kind: "token",
      limit: 5000,
    });
  });

  it("stops at the first turn that goes on when a cost budget cannot be checked", () => {
    const hit = firstHit(new BudgetWatch({ maxCost: 1 }), [userEnd("task"), step()]);
    expect(hit).toEqual({ kind: "cost", limit: 1, unchecked: true });
    expect(budgetHitText(hit!)).toBe("cost budget $1.00 cannot be checked: the provider reported no usable usage");
  });

  it("a usable report below the limits trips nothing", () => {
    expect(
      firstHit(new BudgetWatch({ maxCost: 1, maxTokens: 5000 }), [
        userEnd("task"),
        step({ input: 100, output: 10, cost: 0.01 }),
      ]),
    ).toBeUndefined();
  });
});
