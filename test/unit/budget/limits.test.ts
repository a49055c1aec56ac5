import { describe, expect, it } from "vitest";
import {
  budgetHitText,
  budgetReached,
  budgetUseText,
  budgetValue,
  budgetValueProblem,
  describeLimits,
  formatCost,
  readEnvBudget,
  budgetAwareStatus,
  budgetSummary,
} from "../../../src/budget/limits.ts";
import { applyCallBudget, resolveConfiguredBudget } from "../../../src/config/resolve.ts";
import { emptyLayer } from "../../../src/config/load.ts";
import { emptyUsage, type UsageTotals } from "../../../src/shared/text.ts";

function usage(fields: Partial<UsageTotals>): UsageTotals {
  return { ...emptyUsage(), ...fields };
}

describe("budget values", () => {
  it("accepts whole numbers ≥ 1 for turns and tokens, numbers > 0 for cost, also as numeric strings", () => {
    expect(budgetValue("maxTurns", 8)).toBe(8);
    expect(budgetValue("maxTurns", " 8 ")).toBe(8);
    expect(budgetValue("maxTokens", 50000)).toBe(50000);
    expect(budgetValue("maxCost", 0.5)).toBe(0.5);
    expect(budgetValue("maxCost", "1.25")).toBe(1.25);
  });

  it("refuses zero, negatives, fractions of turns, words and non-finite numbers, saying the rule", () => {
    for (const bad of [0, -1, 2.5, "lots", "", Number.NaN, Number.POSITIVE_INFINITY, true, null]) {
      expect(budgetValue("maxTurns", bad)).toBeUndefined();
    }
    expect(budgetValue("maxCost", 0)).toBeUndefined();
    expect(budgetValueProblem("maxTurns", "x")).toBe('"maxTurns" must be a whole number of at least 1');
    expect(budgetValueProblem("maxCost", -2)).toBe('"maxCost" must be a number greater than 0');
  });
});

describe("budgetReached", () => {
  it("names the first limit reached: turns, then tokens (input + output), then cost", () => {
    const limits = { maxTurns: 3, maxTokens: 1000, maxCost: 0.5 };
    expect(budgetReached(limits, usage({ turns: 2, input: 400, output: 100, cost: 0.1 }))).toBeUndefined();
    expect(budgetReached(limits, usage({ turns: 3 }))).toEqual({ kind: "turn", limit: 3 });
    expect(budgetReached(limits, usage({ turns: 1, input: 900, output: 100, cacheRead: 99999 }))).toEqual({
      kind: "token",
      limit: 1000,
    });
    expect(budgetReached(limits, usage({ turns: 1, cost: 0.5 }))).toEqual({ kind: "cost", limit: 0.5 });
    expect(budgetReached({}, usage({ turns: 1000, cost: 1000 }))).toBeUndefined();
  });

  it("states the stop in words", () => {
    expect(budgetHitText({ kind: "turn", limit: 8 })).toBe("turn budget 8 reached");
    expect(budgetHitText({ kind: "token", limit: 50000 })).toBe("token budget 50000 reached");
    expect(budgetHitText({ kind: "cost", limit: 1 })).toBe("cost budget $1.00 reached");
  });
});

describe("use against the limits", () => {
  it("shows turn n/N, tokens and cost against each limit that is set, nothing without limits", () => {
    expect(budgetUseText({ maxTurns: 8, maxCost: 1 }, usage({ turns: 3, cost: 0.41 }))).toBe("turn 3/8 · $0.41/$1.00");
    expect(budgetUseText({ maxTokens: 50000 }, usage({ input: 12000, output: 500 }))).toBe("12.5k/50k tok");
    expect(budgetUseText(undefined, usage({ turns: 3 }))).toBe("");
    expect(formatCost(0.0042)).toBe("$0.0042");
    expect(describeLimits({ maxTurns: 2, maxCost: 0.25 })).toBe("maxTurns 2, maxCost $0.25");
  });
});

describe("readEnvBudget", () => {
  it("reads the three variables and warns once per malformed one, naming it", () => {
    const result = readEnvBudget({
      PI_SUBAGENT_MAX_TURNS: "5",
      PI_SUBAGENT_MAX_TOKENS: "many",
      PI_SUBAGENT_MAX_COST: "-1",
    });
    expect(result.limits).toEqual({ maxTurns: 5 });
    expect(result.warnings).toEqual([
      'pi-subagent-dispatch: PI_SUBAGENT_MAX_TOKENS="many" must be a whole number of at least 1; ignored',
      'pi-subagent-dispatch: PI_SUBAGENT_MAX_COST="-1" must be a number greater than 0; ignored',
    ]);
  });
});

describe("resolving a task's budget", () => {
  const agent = { name: "worker", maxTurns: 10, maxCost: 2 };
  const project = emptyLayer("project", "/p/.pi/subagent-isolation.json");
  project.entries["worker"] = { maxCost: 1 };

  it("config entry > frontmatter > environment, each limit with its source", () => {
    const resolved = resolveConfiguredBudget(agent, { project }, { maxTurns: 50, maxTokens: 9000 });
    expect(resolved.limits).toEqual({ maxTurns: 10, maxTokens: 9000, maxCost: 1 });
    expect(resolved.sources).toEqual({ maxTurns: "frontmatter", maxTokens: "env", maxCost: "project" });
  });

  it("a call's lower limit wins; a higher one is capped and said", () => {
    const configured = resolveConfiguredBudget(agent, { project }, {});
    const lower = applyCallBudget(configured, { maxCost: 0.25, maxTurns: 3 });
    expect(lower.limits).toEqual({ maxTurns: 3, maxCost: 0.25 });
    expect(lower.capped).toEqual([]);
    const higher = applyCallBudget(configured, { maxCost: 5, maxTokens: 100 });
    expect(higher.limits).toEqual({ maxTurns: 10, maxCost: 1, maxTokens: 100 });
    expect(higher.capped).toEqual([
      "maxCost $5.00 was capped at the configured $1.00 (project); a call can only lower a budget",
    ]);
  });

  it("reads in records: the stopped status and the Budget line", () => {
    expect(budgetAwareStatus({ status: "stopped", errorMessage: "turn budget 2 reached" })).toBe(
      "stopped: turn budget 2 reached",
    );
    expect(budgetAwareStatus({ status: "succeeded" })).toBe("succeeded");
    expect(
      budgetSummary({ status: "succeeded", budget: { maxCost: 1 }, budgetNotes: ["maxCost $5.00 was capped"] }),
    ).toBe("maxCost $1.00 (maxCost $5.00 was capped)");
    expect(budgetSummary({ status: "succeeded" })).toBeUndefined();
  });
});
