/**
 * Per-task budgets: the three limits, their value rules, the check the runner makes as the child's usage grows,
 * and the texts that show use against a limit. Pure and cheap: the check is a few comparisons, made only when a
 * turn ends.
 */
import { formatTokens } from "../shared/format.ts";
import type { UsageTotals } from "../shared/format.ts";

export const BUDGET_KEYS = (["maxTurns", "maxTokens", "maxCost"] as const);
export type BudgetKey = (typeof BUDGET_KEYS)[number];

/** Limits on one task; an absent key is no limit. */
export interface BudgetLimits {
  /** Assistant turns (model calls) the child may make. */
  maxTurns?: number;
  /** Input plus output tokens over all turns. */
  maxTokens?: number;
  /** Cost in the model's currency units, as pi computes it from the model's prices. */
  maxCost?: number;
}

/** Which budget stopped a run. */
export type BudgetKind = "turn" | "token" | "cost";

export interface BudgetHit {
  kind: BudgetKind;
  limit: number;
  /** The limit could not be checked (a cost budget when a turn's cost is unknown): the run stops all the same. */
  unchecked?: boolean;
}

/** The stop reason a record keeps for each budget. */
export const BUDGET_STOP_REASONS: Record<BudgetKind, string> = {
  turn: "turn_budget",
  token: "token_budget",
  cost: "cost_budget",
};

/**
 * A value's problem, or undefined when it is a valid limit: whole numbers ≥ 1 for turns and tokens, a number > 0 for cost.
 */
export function budgetValueProblem(key: BudgetKey, value: unknown): string | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : value;
  if (typeof number !== "number" || !Number.isFinite(number)) return `"${key}" must be ${describeRule(key)}`;
  if (key === "maxCost" ? number <= 0 : !Number.isInteger(number) || number < 1) return `"${key}" must be ${describeRule(key)}`;
  return undefined;
}

function describeRule(key: BudgetKey): string {
  return key === "maxCost" ? "a number greater than 0" : "a whole number of at least 1";
}

/** The value as a number when valid (numbers and numeric strings), else undefined. */
export function budgetValue(key: BudgetKey, value: unknown): number | undefined {
  if (budgetValueProblem(key, value) !== undefined) return undefined;
  return typeof value === "string" ? Number(value.trim()) : (value as number);
}

export function hasAnyLimit(limits: BudgetLimits | undefined): limits is BudgetLimits {
  return limits !== undefined && (limits.maxTurns !== undefined || limits.maxTokens !== undefined || limits.maxCost !== undefined);
}

/** The first limit the usage has reached (turns, then tokens, then cost), or undefined. */
export function budgetReached(limits: BudgetLimits, usage: UsageTotals): BudgetHit | undefined {
  if (limits.maxTurns !== undefined && usage.turns >= limits.maxTurns) return { kind: "turn", limit: limits.maxTurns };
  if (limits.maxTokens !== undefined && usage.input + usage.output >= limits.maxTokens) return { kind: "token", limit: limits.maxTokens };
  if (limits.maxCost !== undefined && usage.cost >= limits.maxCost) return { kind: "cost", limit: limits.maxCost };
  return undefined;
}

/** A cost as people read it: `$1.00`, `$0.41`, and four places below a cent (`$0.0042`). */
export function formatCost(value: number): string {
  return value !== 0 && Math.abs(value) < 0.01 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

/**
 * `turn budget 8 reached`, `token budget 50000 reached`, `cost budget $1.00 reached`, or `cost budget $1.00 cannot
 * be checked: …` when a turn's cost is unknown.
 */
export function budgetHitText(hit: BudgetHit): string {
  const limit = hit.kind === "cost" ? formatCost(hit.limit) : String(hit.limit);
  if (hit.unchecked) return `${hit.kind} budget ${limit} cannot be checked: the provider reported no usable usage`;
  return `${hit.kind} budget ${limit} reached`;
}

/** The limits as one phrase: `maxTurns 8, maxTokens 50000, maxCost $1.00`, or `none`. */
export function describeLimits(limits: BudgetLimits | undefined): string {
  if (!hasAnyLimit(limits)) return "none";
  const parts: string[] = [];
  if (limits.maxTurns !== undefined) parts.push(`maxTurns ${limits.maxTurns}`);
  if (limits.maxTokens !== undefined) parts.push(`maxTokens ${limits.maxTokens}`);
  if (limits.maxCost !== undefined) parts.push(`maxCost ${formatCost(limits.maxCost)}`);
  return parts.join(", ");
}

/**
 * Use against each limit that is set, for the widget row and the watch view: `turn 3/8 · 12.5k/50k tok ·
 * $0.41/$1.00`; empty when no limit is set.
 */
export function budgetUseText(limits: BudgetLimits | undefined, usage: UsageTotals): string {
  if (!hasAnyLimit(limits)) return "";
  const parts: string[] = [];
  if (limits.maxTurns !== undefined) parts.push(`turn ${usage.turns}/${limits.maxTurns}`);
  if (limits.maxTokens !== undefined) parts.push(`${formatTokens(usage.input + usage.output)}/${formatTokens(limits.maxTokens)} tok`);
  if (limits.maxCost !== undefined) parts.push(`${formatCost(usage.cost)}/${formatCost(limits.maxCost)}`);
  return parts.join(" · ");
}
