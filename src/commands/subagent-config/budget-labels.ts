/**
 * The texts of /subagent-config's `budget` field (pure): the field's value in the field select, the three
 * limits with their values and sources, the input and target titles, and the notices after a write.
 */
import type { AgentDefinition } from "../../agents/types.ts";
import { readEnvBudget } from "../../budget/env-budget.ts";
import { BUDGET_KEYS, formatCost } from "../../budget/limits.ts";
import type { BudgetKey } from "../../budget/limits.ts";
import { resolveConfiguredBudget } from "../../config/resolve-budget.ts";
import type { ResolvedBudget } from "../../config/resolve-budget.ts";
import type { ConfigLayers } from "../../config/resolve.ts";
import { ANNOTATION_SEPARATOR, NOT_SET, PROCESS_TARGET_LABEL } from "./labels.ts";
import type { Choice } from "./labels.ts";
import type { ConfigSnapshot, WriteTarget } from "./config-types.ts";

export function agentBudget(agent: AgentDefinition, layers: ConfigLayers): ResolvedBudget {
  return resolveConfiguredBudget(agent, layers, readEnvBudget().limits);
}

function shown(key: BudgetKey, value: number): string {
  return key === "maxCost" ? formatCost(value) : String(value);
}

/** `8 (frontmatter)`, `$1.00 (project)`, `not set`. */
export function budgetValueText(budget: ResolvedBudget, key: BudgetKey): string {
  const value = budget.limits[key];
  if (value === undefined) return NOT_SET;
  const source = budget.sources[key] === "env" ? "environment" : budget.sources[key];
  return `${shown(key, value)} (${source})`;
}

/** The field select's value: `maxTurns 8 (frontmatter), maxCost $1.00 (project)` or `not set`. */
export function budgetFieldValue(agent: AgentDefinition, layers: ConfigLayers): string {
  const budget = agentBudget(agent, layers);
  const parts = BUDGET_KEYS.filter((key) => budget.limits[key] !== undefined).map((key) => `${key} ${budgetValueText(budget, key)}`);
  return parts.length > 0 ? parts.join(", ") : NOT_SET;
}

export function budgetKeyChoices(agent: AgentDefinition, layers: ConfigLayers): Choice<BudgetKey>[] {
  const budget = agentBudget(agent, layers);
  return BUDGET_KEYS.map((key) => ({ label: `${key}${ANNOTATION_SEPARATOR}${budgetValueText(budget, key)}`, value: key }));
}

export function budgetKeyTitle(agent: AgentDefinition): string {
  return `${agent.name}: budget (a limit reached stops the subagent, keeping its partial output)`;
}

export function budgetInputTitle(agent: AgentDefinition, key: BudgetKey): string {
  const rule = key === "maxCost" ? "a number greater than 0, in the model's currency" : "a whole number of at least 1";
  return `${agent.name}: ${key} (${rule}; empty clears it)`;
}

export function budgetTargetTitle(agent: AgentDefinition, paths: ConfigSnapshot["configPaths"], key: BudgetKey): string {
  return [
    `${agent.name}: write ${key} to`,
    `  ${PROCESS_TARGET_LABEL}: memory only, nothing written to disk; gone when pi exits or on /reload`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"}`,
  ].join("\n");
}

export function invalidBudgetNotice(agentName: string, key: BudgetKey, typed: string): string {
  const rule = key === "maxCost" ? "a number greater than 0" : "a whole number of at least 1";
  return `${agentName}: ${key} must be ${rule} (got ${JSON.stringify(typed.slice(0, 40))}); nothing written.`;
}

export function budgetWrittenNotice(agentName: string, key: BudgetKey, value: number | null, target: WriteTarget, filePath: string | undefined, changed: boolean): string {
  const where = target === "process" ? PROCESS_TARGET_LABEL : (filePath ?? target);
  if (!changed) return `${agentName}: ${key} unchanged in ${where}; nothing written.`;
  return value === null ? `${agentName}: ${key} cleared in ${where}.` : `${agentName}: ${key} ${shown(key, value)} saved to ${where}.`;
}
