/**
 * The budget a task runs with, each limit with its source. Pure.
 *
 * Configured limits shadow per field: for each limit the person's value is the highest of their layers whose entry
 * sets it (process > user), then a built-in or user agent's frontmatter, then the session-wide environment default.
 * A project (its entry for the agent, a project agent's frontmatter) can only lower that value, never raise it: a
 * repository must not lift the person's spending limit. Unlike model and
 * thinking (src/config/resolve.ts), an entry that sets one limit hides nothing else of a lower layer. A call's own limit can only lower a configured one: a lower value wins, a
 * higher one is capped at the configured limit and a note says so; with nothing configured the call's value is
 * used as given.
 */
import { entriesOf } from "./resolve.ts";
import { BUDGET_ENV } from "../budget/env-budget.ts";
import { BUDGET_KEYS, formatCost } from "../budget/limits.ts";
import type { ConfigLayers } from "./resolve.ts";
import type { AgentSource } from "../agents/types.ts";
import type { ValueSource } from "./types.ts";
import type { BudgetKey, BudgetLimits } from "../budget/limits.ts";

export type BudgetSource = Exclude<ValueSource, "inherited"> | "env" | "call";

export interface ResolvedBudget {
  limits: BudgetLimits;
  sources: Partial<Record<BudgetKey, BudgetSource>>;
  /** One sentence per call value that was above the configured limit and was capped. */
  capped: string[];
}

function show(key: BudgetKey, value: number): string {
  return key === "maxCost" ? formatCost(value) : String(value);
}

/** The configured limits (config entry, frontmatter, env) of an agent, ignoring any call. */
export function resolveConfiguredBudget(agent: { name: string; source?: AgentSource } & BudgetLimits, layers: ConfigLayers, envLimits: BudgetLimits): ResolvedBudget {
  const entries = entriesOf(agent.name, layers);
  const resolved: ResolvedBudget = { limits: {}, sources: {}, capped: [] };
  const projectAgent = agent.source === "project";
  for (const key of BUDGET_KEYS) {
    // The person's limit: their entries (this process's, then the user file's), a built-in or user agent's own
    // frontmatter, then the environment default.
    let limit: number | undefined;
    let source: BudgetSource | undefined;
    const personal = entries.find(({ entry, source: layer }) => layer !== "project" && entry[key] !== undefined);
    if (personal) [limit, source] = [personal.entry[key], personal.source];
    else if (!projectAgent && agent[key] !== undefined) [limit, source] = [agent[key], "frontmatter"];
    else if (envLimits[key] !== undefined) [limit, source] = [envLimits[key], "env"];
    // The project's (its entry, a project agent's frontmatter) only ever lowers it.
    const projectEntry = entries.find(({ source: layer }) => layer === "project")?.entry[key];
    const projectValues: [number | undefined, BudgetSource][] = [[projectAgent ? agent[key] : undefined, "frontmatter"], [projectEntry, "project"]];
    for (const [value, from] of projectValues) {
      if (value !== undefined && (limit === undefined || value < limit)) [limit, source] = [value, from];
    }
    if (limit !== undefined && source !== undefined) {
      resolved.limits[key] = limit;
      resolved.sources[key] = source;
    }
  }
  return resolved;
}

/** Applies a call's limits to the configured ones (see the file comment). */
export function applyCallBudget(configured: ResolvedBudget, call: BudgetLimits): ResolvedBudget {
  const resolved: ResolvedBudget = { limits: { ...configured.limits }, sources: { ...configured.sources }, capped: [...configured.capped] };
  for (const key of BUDGET_KEYS) {
    const asked = call[key];
    if (asked === undefined) continue;
    const limit = configured.limits[key];
    if (limit === undefined || asked <= limit) {
      resolved.limits[key] = asked;
      resolved.sources[key] = "call";
    } else {
      const where = configured.sources[key] === "env" ? BUDGET_ENV[key] : (configured.sources[key] ?? "config");
      resolved.capped.push(`${key} ${show(key, asked)} was capped at the configured ${show(key, limit)} (${where}); a call can only lower a budget`);
    }
  }
  return resolved;
}
