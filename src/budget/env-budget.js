// @ts-check
/**
 * Session-wide budget defaults from the environment: `PI_SUBAGENT_MAX_TURNS`, `PI_SUBAGENT_MAX_TOKENS` and
 * `PI_SUBAGENT_MAX_COST`. They apply to every agent whose frontmatter and config set no value of their own.
 * A malformed value is ignored with one warning naming the variable.
 */
import { budgetValue, budgetValueProblem } from "./limits.js";
/** @import { BudgetKey, BudgetLimits } from "./limits.js" */

/** @type {Record<BudgetKey, string>} */
export const BUDGET_ENV = {
  maxTurns: "PI_SUBAGENT_MAX_TURNS",
  maxTokens: "PI_SUBAGENT_MAX_TOKENS",
  maxCost: "PI_SUBAGENT_MAX_COST",
};

/**
 * @typedef {object} EnvBudget
 * @property {BudgetLimits} limits
 * @property {string[]} warnings
 */

/**
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {EnvBudget}
 */
export function readEnvBudget(env = process.env) {
  /** @type {BudgetLimits} */
  const limits = {};
  /** @type {string[]} */
  const warnings = [];
  for (const key of /** @type {BudgetKey[]} */ (Object.keys(BUDGET_ENV))) {
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
