// @ts-check
/**
 * The texts of /subagent-config's `budget` field (pure): the field's value in the field select, the three
 * limits with their values and sources, the input and target titles, and the notices after a write.
 */
/** @import { AgentDefinition } from "../../agents/types.ts" */
import { readEnvBudget } from "../../budget/env-budget.js";
import { BUDGET_KEYS, formatCost } from "../../budget/limits.js";
/** @import { BudgetKey } from "../../budget/limits.js" */
import { resolveConfiguredBudget } from "../../budget/resolve-budget.js";
/** @import { ResolvedBudget } from "../../budget/resolve-budget.js" */
/** @import { ConfigLayers } from "../../config/resolve.js" */
import { ANNOTATION_SEPARATOR, NOT_SET, PROCESS_TARGET_LABEL } from "./labels.js";
/** @import { Choice } from "./labels.js" */
/** @import { ConfigSnapshot, WriteTarget } from "./types.ts" */

/**
 * @param {AgentDefinition} agent
 * @param {ConfigLayers} layers
 * @returns {ResolvedBudget}
 */
export function agentBudget(agent, layers) {
  return resolveConfiguredBudget(agent, layers, readEnvBudget().limits);
}

/**
 * @param {BudgetKey} key
 * @param {number} value
 * @returns {string}
 */
function shown(key, value) {
  return key === "maxCost" ? formatCost(value) : String(value);
}

/**
 * `8 (frontmatter)`, `$1.00 (project)`, `not set`.
 * @param {ResolvedBudget} budget
 * @param {BudgetKey} key
 * @returns {string}
 */
export function budgetValueText(budget, key) {
  const value = budget.limits[key];
  if (value === undefined) return NOT_SET;
  const source = budget.sources[key] === "env" ? "environment" : budget.sources[key];
  return `${shown(key, value)} (${source})`;
}

/**
 * The field select's value: `maxTurns 8 (frontmatter), maxCost $1.00 (project)` or `not set`.
 * @param {AgentDefinition} agent
 * @param {ConfigLayers} layers
 * @returns {string}
 */
export function budgetFieldValue(agent, layers) {
  const budget = agentBudget(agent, layers);
  const parts = BUDGET_KEYS.filter((key) => budget.limits[key] !== undefined).map((key) => `${key} ${budgetValueText(budget, key)}`);
  return parts.length > 0 ? parts.join(", ") : NOT_SET;
}

/**
 * @param {AgentDefinition} agent
 * @param {ConfigLayers} layers
 * @returns {Choice<BudgetKey>[]}
 */
export function budgetKeyChoices(agent, layers) {
  const budget = agentBudget(agent, layers);
  return BUDGET_KEYS.map((key) => ({ label: `${key}${ANNOTATION_SEPARATOR}${budgetValueText(budget, key)}`, value: key }));
}

/**
 * @param {AgentDefinition} agent
 * @returns {string}
 */
export function budgetKeyTitle(agent) {
  return `${agent.name}: budget (a limit reached stops the subagent, keeping its partial output)`;
}

/**
 * @param {AgentDefinition} agent
 * @param {BudgetKey} key
 * @returns {string}
 */
export function budgetInputTitle(agent, key) {
  const rule = key === "maxCost" ? "a number greater than 0, in the model's currency" : "a whole number of at least 1";
  return `${agent.name}: ${key} (${rule}; empty clears it)`;
}

/**
 * @param {AgentDefinition} agent
 * @param {ConfigSnapshot["configPaths"]} paths
 * @param {BudgetKey} key
 * @returns {string}
 */
export function budgetTargetTitle(agent, paths, key) {
  return [
    `${agent.name}: write ${key} to`,
    `  ${PROCESS_TARGET_LABEL}: memory only, nothing written to disk; gone when pi exits or on /reload`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"}`,
  ].join("\n");
}

/**
 * @param {string} agentName
 * @param {BudgetKey} key
 * @param {string} typed
 * @returns {string}
 */
export function invalidBudgetNotice(agentName, key, typed) {
  const rule = key === "maxCost" ? "a number greater than 0" : "a whole number of at least 1";
  return `${agentName}: ${key} must be ${rule} (got ${JSON.stringify(typed.slice(0, 40))}); nothing written.`;
}

/**
 * @param {string} agentName
 * @param {BudgetKey} key
 * @param {number | null} value
 * @param {WriteTarget} target
 * @param {string | undefined} filePath
 * @param {boolean} changed
 * @returns {string}
 */
export function budgetWrittenNotice(agentName, key, value, target, filePath, changed) {
  const where = target === "process" ? PROCESS_TARGET_LABEL : (filePath ?? target);
  if (!changed) return `${agentName}: ${key} unchanged in ${where}; nothing written.`;
  return value === null ? `${agentName}: ${key} cleared in ${where}.` : `${agentName}: ${key} ${shown(key, value)} saved to ${where}.`;
}
