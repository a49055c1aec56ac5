/**
 * The `## Available Subagents` block: its text, and the block beside a result.
 */
import type { AgentDefinition } from "../agents/parse.ts";
import { oneLine } from "../shared/text.ts";
import { isResultMessage, type ContextMessage } from "../delivery/delivery-tracker.ts";

/*
 * The `## Available Subagents` block appended to the main agent's system prompt. Pure. The heading, intro line
 * and `name — description (source)` lines follow the spec to the character; the caps keep the block small
 * however many agents exist.
 */
const ROSTER_HEADING = "## Available Subagents";
const ROSTER_INTRO = "Delegate tasks to these specialized subagents via the `subagent` tool:";
/** Agents listed by name; the rest are counted in one closing line. */
export const MAX_ROSTER_AGENTS = 40;
/** Characters of description per line, after flattening it to one line. */
const MAX_ROSTER_DESCRIPTION = 200;

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
export function buildRosterBlock(
  agents: readonly RosterAgent[],
  limits: RosterLimits = DEFAULT_LIMITS,
): string | undefined {
  if (agents.length === 0) return undefined;
  const shown = agents.slice(0, limits.maxAgents);
  const lines = shown.map((agent) => rosterLine(agent, limits.maxDescription));
  if (agents.length > shown.length) lines.push(overflowLine(agents.length - shown.length));
  return [ROSTER_HEADING, "", ROSTER_INTRO, "", ...lines].join("\n");
}

/*
 * The roster for a turn that digests a `[subagent-result]` without it in the system prompt. pi 0.73.1 does not
 * run `before_agent_start` for turns started by a message, so after a restart or /reload a redelivered result
 * would be digested by a model that does not know which subagents exist. Then the roster block is appended to
 * the newest result message of the model call (only in what the model sees; pi's session is untouched). Pure.
 */
/** The sentence that introduces the roster inside a result message (exact; ADVANCED.md quotes it). */
const ROSTER_FOR_RESULT_INTRO = "(For reference while digesting this result: the subagents you can dispatch.)";

export type ContentMessage = ContextMessage & { content?: unknown };

function withBlock(content: unknown, addition: string): unknown {
  if (typeof content === "string") return `${content}\n\n${addition}`;
  if (Array.isArray(content)) return [...content, { type: "text", text: addition }];
  return content;
}

/**
 * The messages with the roster added to the newest result message, or undefined when nothing changes: the
 * system prompt has the roster already, or the call holds no result message.
 */
export function withRosterForResults<T extends ContentMessage>(
  messages: readonly T[],
  systemPrompt: string,
  block: string,
): T[] | undefined {
  if (systemPrompt.includes(block)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as T;
    if (!isResultMessage(message)) continue;
    const copy = messages.slice();
    copy[i] = { ...message, content: withBlock(message.content, `${ROSTER_FOR_RESULT_INTRO}\n\n${block}`) };
    return copy;
  }
  return undefined;
}
