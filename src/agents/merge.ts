/**
 * Tier precedence, pure: builtin < user < project, a later tier replacing an earlier agent of the same name.
 * `agentScope` decides which of the user and project tiers take part; builtins always do.
 */
import { compareNames } from "./read-dir.ts";
import type { AgentDefinition, AgentScope } from "./types.ts";

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

/**
 * The effective agents, one per name, sorted by name. A project agent that replaces a built-in or user agent
 * carries it as `shadows` (a copy: the parsed definitions are cached and shared), so the name keeps its protection.
 * It is shadowed as the person has it, whatever the call's scope: a scope narrows which agents are offered, never
 * what a name stands for.
 */
export function mergeAgentTiers(tiers: AgentTiers, scope: AgentScope = "both"): AgentDefinition[] {
  const byName: Map<string, AgentDefinition> = new Map();
  const personal: Map<string, AgentDefinition> = new Map();
  for (const agent of [...tiers.builtin, ...tiers.user]) personal.set(agent.name, agent);
  const layers = [tiers.builtin, scopeIncludesUser(scope) ? tiers.user : [], scopeIncludesProject(scope) ? tiers.project : []];
  for (const layer of layers) {
    for (const agent of layer) {
      const replaced = agent.source === "project" ? personal.get(agent.name) : undefined;
      if (replaced === undefined) byName.set(agent.name, agent);
      else {
        const { name, source, filePath, tools, sandbox } = replaced;
        byName.set(agent.name, { ...agent, shadows: { name, source, filePath, ...(tools ? { tools } : {}), ...(sandbox ? { sandbox } : {}) } });
      }
    }
  }
  return [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
}
