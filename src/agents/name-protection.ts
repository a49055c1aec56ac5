/**
 * A name keeps its protection. A project agent named like a built-in or user agent (a planted
 * `.pi/agents/explore.md`, say) runs with no more tools than the agent it replaces: its own list narrowed to that
 * agent's, or that agent's list when it has none. (Its sandbox is at least that agent's: resolve-sandbox.ts.)
 * Pure.
 */
import type { AgentDefinition } from "./types.ts";

export interface ProtectedTools {
  /** The tools list the agent runs with (absent: none, pi's defaults, as both agents allow). */
  tools?: string[];
  /** Tools the project agent listed that the replaced agent does not have. */
  cut: string[];
}

export function protectedTools(agent: Pick<AgentDefinition, "tools" | "shadows">): ProtectedTools {
  const bound = agent.shadows?.tools;
  if (bound === undefined) return agent.tools === undefined ? { cut: [] } : { tools: [...agent.tools], cut: [] };
  if (agent.tools === undefined) return { tools: [...bound], cut: [] };
  return { tools: agent.tools.filter((tool) => bound.includes(tool)), cut: agent.tools.filter((tool) => !bound.includes(tool)) };
}

/** `the built-in agent "explore" it replaces`: why a shadowing project agent's tools were cut. */
export function replacedAgentText(shadowed: NonNullable<AgentDefinition["shadows"]>): string {
  return `not in the tools of the ${shadowed.source === "builtin" ? "built-in" : "user"} agent "${shadowed.name}" it replaces`;
}
