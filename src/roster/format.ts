/**
 * The `## Available Subagents` block appended to the main agent's system prompt. Pure. The heading, intro line
 * and `name — description (source)` lines follow the spec to the character; the caps keep the block small
 * however many agents exist.
 */
import type { AgentDefinition } from "../agents/types.ts";
import { oneLine } from "../shared/format.ts";

export const ROSTER_HEADING = "## Available Subagents";
export const ROSTER_INTRO = "Delegate tasks to these specialized subagents via the `subagent` tool:";
/** Agents listed by name; the rest are counted in one closing line. */
export const MAX_ROSTER_AGENTS = 40;
/** Characters of description per line, after flattening it to one line. */
export const MAX_ROSTER_DESCRIPTION = 200;

export interface RosterLimits {
  maxAgents: number;
  maxDescription: number;
}

const DEFAULT_LIMITS: RosterLimits = { maxAgents: MAX_ROSTER_AGENTS, maxDescription: MAX_ROSTER_DESCRIPTION };

export type RosterAgent = Pick<AgentDefinition, "name" | "description" | "source">;

/** `- name — description (source)`, the description flattened to one line and capped. */
export function rosterLine(agent: RosterAgent, maxDescription: number = MAX_ROSTER_DESCRIPTION): string {
  return `- ${agent.name} \u2014 ${oneLine(agent.description, maxDescription)} (${agent.source})`;
}

export function overflowLine(hidden: number): string {
  const noun = hidden === 1 ? "subagent is" : "subagents are";
  return `(${hidden} more ${noun} not listed here; calling the \`subagent\` tool with an unknown agent name returns an error that lists every available name.)`;
}

/** The block for these agents (in the order given), or undefined when there are none. */
export function buildRosterBlock(agents: readonly RosterAgent[], limits: RosterLimits = DEFAULT_LIMITS): string | undefined {
  if (agents.length === 0) return undefined;
  const shown = agents.slice(0, limits.maxAgents);
  const lines = shown.map((agent) => rosterLine(agent, limits.maxDescription));
  if (agents.length > shown.length) lines.push(overflowLine(agents.length - shown.length));
  return [ROSTER_HEADING, "", ROSTER_INTRO, "", ...lines].join("\n");
}
