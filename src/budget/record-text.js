// @ts-check
/**
 * How a task's budget reads in its envelope, blocking result and printed result (pure): the status of a run a
 * budget stopped (`stopped: turn budget 8 reached`) and the `Budget:` line with any capped call value.
 */
import { describeLimits, hasAnyLimit } from "./limits.js";
/** @import { BudgetLimits } from "./limits.js" */

/**
 * @typedef {object} BudgetedRecord
 * @property {string} status
 * @property {string} [errorMessage]
 * @property {BudgetLimits} [budget]
 * @property {readonly string[]} [budgetNotes]
 */

/**
 * `stopped: turn budget 8 reached` for a run a budget ended; otherwise the bare status.
 * @param {BudgetedRecord} record
 * @returns {string}
 */
export function budgetAwareStatus(record) {
  return record.status === "stopped" && record.errorMessage ? `stopped: ${record.errorMessage}` : record.status;
}

/**
 * `maxTurns 8, maxCost $1.00 (maxCost $5.00 was capped at ...)`, or undefined when there is nothing to say.
 * @param {BudgetedRecord} record
 * @returns {string | undefined}
 */
export function budgetSummary(record) {
  const notes = record.budgetNotes ?? [];
  if (!hasAnyLimit(record.budget) && notes.length === 0) return undefined;
  const limits = describeLimits(record.budget);
  return notes.length > 0 ? `${limits} (${notes.join("; ")})` : limits;
}
