/**
 * Per-task budgets: the three limits and their rules, the session-wide defaults from the environment, and how a budget reads in a task's results.
 */
import { formatTokens, type UsageTotals } from "../shared/text.ts";

/*
 * Per-task budgets: the three limits, their value rules, the check the runner makes as the child's usage grows,
 * and the texts that show use against a limit. Pure and cheap: the check is a few comparisons, made only when a
 * turn ends.
 */
export const BUDGET_KEYS = ["maxTurns", "maxTokens", "maxCost"] as const;
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
  if (key === "maxCost" ? number <= 0 : !Number.isInteger(number) || number < 1)
    return `"${key}" must be ${describeRule(key)}`;
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
  return (
    limits !== undefined &&
    (limits.maxTurns !== undefined || limits.maxTokens !== undefined || limits.maxCost !== undefined)
  );
}

/** The first limit the usage has reached (turns, then tokens, then cost), or undefined. */
export function budgetReached(limits: BudgetLimits, usage: UsageTotals): BudgetHit | undefined {
  if (limits.maxTurns !== undefined && usage.turns >= limits.maxTurns) return { kind: "turn", limit: limits.maxTurns };
  if (limits.maxTokens !== undefined && usage.input + usage.output >= limits.maxTokens)
    return { kind: "token", limit: limits.maxTokens };
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
  if (limits.maxTokens !== undefined)
    parts.push(`${formatTokens(usage.input + usage.output)}/${formatTokens(limits.maxTokens)} tok`);
  if (limits.maxCost !== undefined) parts.push(`${formatCost(usage.cost)}/${formatCost(limits.maxCost)}`);
  return parts.join(" · ");
}

/*
 * Session-wide budget defaults from the environment: `PI_SUBAGENT_MAX_TURNS`, `PI_SUBAGENT_MAX_TOKENS` and
 * `PI_SUBAGENT_MAX_COST`. They apply to every agent whose frontmatter and config set no value of their own.
 * A malformed value is ignored with one warning naming the variable.
 */
export const BUDGET_ENV: Record<BudgetKey, string> = {
  maxTurns: "PI_SUBAGENT_MAX_TURNS",
  maxTokens: "PI_SUBAGENT_MAX_TOKENS",
  maxCost: "PI_SUBAGENT_MAX_COST",
};

export interface EnvBudget {
  limits: BudgetLimits;
  warnings: string[];
}

export function readEnvBudget(env: NodeJS.ProcessEnv = process.env): EnvBudget {
  const limits: BudgetLimits = {};
  const warnings: string[] = [];
  for (const key of Object.keys(BUDGET_ENV) as BudgetKey[]) {
    const name = BUDGET_ENV[key];
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    const value = budgetValue(key, raw);
    if (value === undefined) {
      const rule = budgetValueProblem(key, raw)?.replace(`"${key}" must be`, "must be") ?? "is invalid";
      warnings.push(`pi-subagent-dispatch: ${name}=${JSON.stringify(raw.slice(0, 40))} ${rule}; ignored`);
      continue;
    }
    limits[key] = value;
  }
  return { limits, warnings };
}

/*
 * How a task's budget reads in its envelope, blocking result and printed result (pure): the status of a run a
 * budget stopped (`stopped: turn budget 8 reached`) and the `Budget:` line with any capped call value.
 */
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
