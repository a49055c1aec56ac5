// @ts-check
/**
 * The runner's per-line budget check, kept cheap: one integer comparison per line of the child's stream, and
 * the limits compared only once per finished turn. Only a turn that goes on (a tool call follows) can be
 * stopped: a final answer is complete and is kept as it is.
 */
import { budgetReached, hasAnyLimit } from "./limits.js";
/** @import { RunState } from "../run/types.ts" */
/** @import { BudgetHit, BudgetLimits } from "./limits.js" */

export class BudgetWatch {
  /**
   * @private
   * @readonly
   * @type {BudgetLimits}
   */
  limits;

  /** @private */
  checkedTurns = 0;

  /**
   * @private
   * @param {BudgetLimits} limits
   */
  constructor(limits) {
    this.limits = limits;
  }

  /**
   * A watch for the limits, or undefined when there is nothing to watch.
   * @param {BudgetLimits | undefined} limits
   * @returns {BudgetWatch | undefined}
   */
  static of(limits) {
    return hasAnyLimit(limits) ? new BudgetWatch(limits) : undefined;
  }

  /**
   * Call after each line was applied to `state`: the budget the run has just reached, if any.
   * @param {RunState} state
   * @returns {BudgetHit | undefined}
   */
  afterLine(state) {
    if (state.usage.turns === this.checkedTurns) return undefined;
    this.checkedTurns = state.usage.turns;
    return state.stopReason === "toolUse" ? budgetReached(this.limits, state.usage) : undefined;
  }
}
