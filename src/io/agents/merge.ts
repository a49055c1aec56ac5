/**
 * Tier precedence, pure: builtin < user < project, a later tier replacing an earlier agent of the same name.
 * `agentScope` decides which of the user and project tiers take part; builtins always do.
 */
import { compareNames } from "./read-dir.ts";
import type { AgentDefinition, AgentScope } from "../../core/agents/types.ts";

export interface AgentTiers {
  builtin: readonly AgentDefinition[];
  user: readonly AgentDefinition[];
  project: readonly AgentDefinition[];
}

export function scopeIncludesUser(scope: AgentScope): boolean {
  return scope === "user" || scope === "both";
}

export function scopeIncludesProject(scope: AgentScope): boolean {
  return scope === "project" || scope === "both";
}

/** The effective agents, one per name, sorted by name. */
export function mergeAgentTiers(tiers: AgentTiers, scope: AgentScope = "both"): AgentDefinition[] {
  const byName: Map<string, AgentDefinition> = new Map();
  const layers = [tiers.builtin, scopeIncludesUser(scope) ? tiers.user : [], scopeIncludesProject(scope) ? tiers.project : []];
  for (const layer of layers) {
    for (const agent of layer) byName.set(agent.name, agent);
  }
  return [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
}
