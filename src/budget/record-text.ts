/**
 * How a task's budget reads in its envelope, blocking result and printed result (pure): the status of a run a
 * budget stopped (`stopped: turn budget 8 reached`) and the `Budget:` line with any capped call value.
 */
import { describeLimits, hasAnyLimit } from "./limits.ts";
import type { BudgetLimits } from "./limits.ts";

export interface BudgetedRecord {
  status: string;
  errorMessage?: string;
  budget?: BudgetLimits;
  budgetNotes?: readonly string[];
}

/** `stopped: turn budget 8 reached` for a run a budget ended; otherwise the bare status. */
export function budgetAwareStatus(record: BudgetedRecord): string {
  return record.status === "stopped" && record.errorMessage ? `stopped: ${record.errorMessage}` : record.status;
}

/** `maxTurns 8, maxCost $1.00 (maxCost $5.00 was capped at ...)`, or undefined when there is nothing to say. */
export function budgetSummary(record: BudgetedRecord): string | undefined {
  const notes = record.budgetNotes ?? [];
  if (!hasAnyLimit(record.budget) && notes.length === 0) return undefined;
  const limits = describeLimits(record.budget);
  return notes.length > 0 ? `${limits} (${notes.join("; ")})` : limits;
}
