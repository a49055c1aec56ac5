/**
 * How /subagent-agents reads: the same lines in the TUI view and on stdout in print mode, and one JSON line in
 * JSON mode. Pure. Everything taken from a file (descriptions, paths, reasons) has its control sequences removed,
 * since a project's file must not drive the person's terminal.
 *
 *   Subagents the main agent can dispatch: 2
 *
 *   explore · built-in
 *     Read-only and fast. Finds where code lives …
 *     model: fake/fake-model (inherited from the main agent) · thinking: pi's default
 *     tools: read, grep, find, ls
 *     sandbox: off (default) · isolation: none · context: fresh
 *     file: /…/agents/explore.md
 *
 *   reviewer · user, shadows built-in
 *     …
 *
 *   Shadowed (a higher tier defines the same name):
 *   - reviewer · built-in · /…/agents/reviewer.md · shadowed by user /…/agents/reviewer.md
 *
 *   Left out:
 *   - /…/.pi/agents/broken.md · project: no frontmatter …
 */
import { oneLine } from "../shared/format.ts";
import { stripTerminalControls } from "../shared/terminal-text.ts";
import type { AgentSource } from "../agents/types.ts";
import type { AgentInventory, FirstUseState, InventoryAgent } from "./agents-inventory.ts";
import type { ValueSource } from "../config/types.ts";
import type { SandboxSource } from "../config/resolve-sandbox.ts";

/** Characters of description shown per agent (flattened to one line). */
export const AGENTS_DESCRIPTION_MAX = 300;

export const NO_AGENTS = "No subagent can be dispatched: no agent file was found.";

export function agentsTitle(count: number): string {
  return `Subagents the main agent can dispatch: ${count}`;
}

export const SHADOWED_HEADING = "Shadowed (a higher tier defines the same name):";
export const LEFT_OUT_HEADING = "Left out:";

export function tierLabel(tier: AgentSource): string {
  return tier === "builtin" ? "built-in" : tier;
}

const VALUE_SOURCE_LABELS: Record<ValueSource, string> = {
  call: "the call",
  process: "this process (/subagent-config)",
  project: "project subagent-isolation.json",
  user: "user subagent-isolation.json",
  frontmatter: "frontmatter",
  inherited: "inherited from the main agent",
};

const SANDBOX_SOURCE_LABELS: Record<SandboxSource, string> = {
  user: "user subagent-isolation.json",
  frontmatter: "frontmatter",
  $sandbox: '"$sandbox" in user subagent-isolation.json',
  project: "project subagent-isolation.json",
  "project $sandbox": '"$sandbox" in project subagent-isolation.json',
  call: "the call",
  default: "default",
  "resumed task": "the task it resumes, which ran in it",
};

const FIRST_USE_TEXTS: Record<FirstUseState, string> = {
  approved: "approved by you on first use",
  asks: "asks you before its first run (pi has no trust decision for this project)",
  "refused-unasked": "refused here until you approve it once in the TUI (nobody can be asked outside it)",
};

function clean(text: string): string {
  return stripTerminalControls(text);
}

function modelText(agent: InventoryAgent): string {
  const model = agent.model.value !== undefined ? `${clean(agent.model.value)} (${VALUE_SOURCE_LABELS[agent.model.source ?? "inherited"]})` : "pi's default";
  const thinking = agent.thinking.value !== undefined ? `${agent.thinking.value} (${VALUE_SOURCE_LABELS[agent.thinking.source ?? "frontmatter"]})` : "pi's default";
  return `model: ${model} · thinking: ${thinking}`;
}

function toolsText(agent: InventoryAgent): string[] {
  const tools = agent.tools;
  const list = tools.tools.length > 0 ? tools.tools.map(clean).join(", ") : "none";
  const lines = [`tools: ${list}${tools.piDefaults ? " (pi's defaults: the agent lists none)" : ""}`];
  if (tools.notGranted.length > 0) lines.push(`not granted: ${tools.notGranted.map(clean).join(", ")} (${tools.reason ?? "not active in the main session"})`);
  return lines;
}

function headerOf(agent: InventoryAgent): string {
  const shadows = [...new Set(agent.shadows.map((other) => tierLabel(other.tier)))];
  return `${clean(agent.name)} · ${tierLabel(agent.tier)}${shadows.length > 0 ? `, shadows ${shadows.join(" and ")}` : ""}`;
}

/** One agent's block: its header and indented detail lines. */
export function agentLines(agent: InventoryAgent): string[] {
  const details = [
    oneLine(agent.description, AGENTS_DESCRIPTION_MAX),
    modelText(agent),
    ...toolsText(agent),
    `sandbox: ${agent.sandbox.level} (${SANDBOX_SOURCE_LABELS[agent.sandbox.source]}) · isolation: ${agent.isolation} · context: ${agent.context}`,
    ...(agent.firstUse ? [`trust: ${FIRST_USE_TEXTS[agent.firstUse]}`] : []),
    ...agent.notes.map((note) => `note: ${oneLine(note, AGENTS_DESCRIPTION_MAX)}`),
    `file: ${clean(agent.filePath)}`,
  ];
  return [headerOf(agent), ...details.map((line) => `  ${line}`)];
}

/** The whole report, one string a line; blank lines separate the agents and the sections. */
export function agentsReportLines(inventory: AgentInventory): string[] {
  const lines: string[] = [inventory.agents.length === 0 ? NO_AGENTS : agentsTitle(inventory.agents.length)];
  for (const agent of inventory.agents) lines.push("", ...agentLines(agent));
  if (inventory.shadowed.length > 0) {
    lines.push("", SHADOWED_HEADING);
    for (const item of inventory.shadowed) {
      lines.push(`- ${clean(item.name)} · ${tierLabel(item.tier)} · ${clean(item.filePath)} · shadowed by ${tierLabel(item.shadowedBy.tier)} ${clean(item.shadowedBy.filePath)}`);
    }
  }
  if (inventory.leftOut.length > 0) {
    lines.push("", LEFT_OUT_HEADING);
    for (const item of inventory.leftOut) lines.push(`- ${clean(item.filePath)} · ${tierLabel(item.tier)}: ${oneLine(item.reason, AGENTS_DESCRIPTION_MAX)}`);
  }
  return lines;
}

/** JSON mode's line: the inventory as it is, with `type` first. */
export function agentsJsonLine(inventory: AgentInventory): string {
  return `${JSON.stringify({ type: "subagent_agents", ...inventory })}\n`;
}
