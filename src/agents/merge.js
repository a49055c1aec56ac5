// @ts-check
/**
 * Tier precedence, pure: builtin < user < project, a later tier replacing an earlier agent of the same name.
 * `agentScope` decides which of the user and project tiers take part; builtins always do.
 */
import { compareNames } from "./read-dir.js";
/** @import { AgentDefinition, AgentScope } from "./types.ts" */

/**
 * @typedef {object} AgentTiers
 * @property {readonly AgentDefinition[]} builtin
 * @property {readonly AgentDefinition[]} user
 * @property {readonly AgentDefinition[]} project
 */

/**
 * @param {AgentScope} scope
 * @returns {boolean}
 */
export function scopeIncludesUser(scope) {
  return scope === "user" || scope === "both";
}

/**
 * @param {AgentScope} scope
 * @returns {boolean}
 */
export function scopeIncludesProject(scope) {
  return scope === "project" || scope === "both";
}

/**
 * The effective agents, one per name, sorted by name.
 * @param {AgentTiers} tiers
 * @param {AgentScope} [scope]
 * @returns {AgentDefinition[]}
 */
export function mergeAgentTiers(tiers, scope = "both") {
  /** @type {Map<string, AgentDefinition>} */
  const byName = new Map();
  const layers = [tiers.builtin, scopeIncludesUser(scope) ? tiers.user : [], scopeIncludesProject(scope) ? tiers.project : []];
  for (const layer of layers) {
    for (const agent of layer) byName.set(agent.name, agent);
  }
  return [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
}
