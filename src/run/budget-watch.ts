/**
 * The runner's per-line budget check, kept cheap: one integer comparison per line of the child's stream, and
 * the limits compared only once per finished turn. Only a turn that goes on (a tool call follows) can be
 * stopped: a final answer is complete and is kept as it is.
 */
import { budgetReached, hasAnyLimit } from "../budget/limits.ts";
import type { RunState } from "./types.ts";
import type { BudgetHit, BudgetLimits } from "../budget/limits.ts";

export class BudgetWatch {
  private readonly limits: BudgetLimits;

  private checkedTurns = 0;

  constructor(limits: BudgetLimits) {
    this.limits = limits;
  }

  /** A watch for the limits, or undefined when there is nothing to watch. */
  static of(limits: BudgetLimits | undefined): BudgetWatch | undefined {
    return hasAnyLimit(limits) ? new BudgetWatch(limits) : undefined;
  }

  /** Call after each line was applied to `state`: the budget the run has just reached, if any. */
  afterLine(state: RunState): BudgetHit | undefined {
    if (state.usage.turns === this.checkedTurns) return undefined;
    this.checkedTurns = state.usage.turns;
    if (state.stopReason !== "toolUse") return undefined;
    const reached = budgetReached(this.limits, state.usage);
    // A cost budget that cannot be checked (a turn's cost is unknown) must not let a looping child run on.
    if (!reached && this.limits.maxCost !== undefined && state.unknownCostTurns > 0) return { kind: "cost", limit: this.limits.maxCost, unchecked: true };
    return reached;
  }
}
