/**
 * Session-wide budget defaults from the environment: `PI_SUBAGENT_MAX_TURNS`, `PI_SUBAGENT_MAX_TOKENS` and
 * `PI_SUBAGENT_MAX_COST`. They apply to every agent whose frontmatter and config set no value of their own.
 * A malformed value is ignored with one warning naming the variable.
 */
import { budgetValue, budgetValueProblem } from "./limits.ts";
import type { BudgetKey, BudgetLimits } from "./limits.ts";

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
  for (const key of (Object.keys(BUDGET_ENV) as BudgetKey[])) {
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
