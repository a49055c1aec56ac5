/**
 * The texts of /subagent-config's `sandbox` field (pure): the level in force with who set it, the level choices,
 * the titles and the notice after a write. The level is written to a subagent-isolation.json entry only: the
 * process layer holds no sandbox, and a project file's entry can only make it stricter.
 */
import type { AgentDefinition } from "../../agents/types.ts";
import type { ConfigLayers } from "../../config/resolve.ts";
import { SANDBOX_LEVELS } from "../../sandbox/levels.ts";
import type { SandboxLevel } from "../../sandbox/levels.ts";
import { resolveSandbox } from "../../config/resolve-sandbox.ts";
import type { ResolvedSandbox } from "../../config/resolve-sandbox.ts";
import { readSandboxSettings } from "../../config/sandbox-settings.ts";
import { ANNOTATION_SEPARATOR } from "./labels.ts";
import type { Choice } from "./labels.ts";
import type { ConfigSnapshot, FileTarget } from "./config-types.ts";

/** The level a dispatch without a `sandbox` parameter would run the agent with. */
export function agentSandbox(agent: AgentDefinition, layers: ConfigLayers): ResolvedSandbox {
  const settings = readSandboxSettings({ user: layers.user ?? {}, project: layers.project ?? {} });
  return resolveSandbox({
    agent,
    userEntry: layers.user?.entries[agent.name]?.sandbox,
    userDefault: settings.userDefault,
    projectEntry: layers.project?.entries[agent.name]?.sandbox,
    projectDefault: settings.projectDefault,
  });
}

/** `read-only (frontmatter)`, `off (default)`. */
export function sandboxFieldValue(agent: AgentDefinition, layers: ConfigLayers): string {
  const resolved = agentSandbox(agent, layers);
  return `${resolved.level} (${resolved.source})`;
}

/** The three levels, and clearing the entry's value (back to the frontmatter or `$sandbox`). */
export function sandboxLevelChoices(agent: AgentDefinition, layers: ConfigLayers): Choice<SandboxLevel | null>[] {
  const current = agentSandbox(agent, layers).level;
  return [
    ...SANDBOX_LEVELS.map((level) => ({ label: level === current ? `${level} (current)` : level, value: level })),
    { label: `clear${ANNOTATION_SEPARATOR}the entry's sandbox goes; the frontmatter or "$sandbox" applies`, value: null },
  ];
}

export function sandboxLevelTitle(agent: AgentDefinition): string {
  return `${agent.name}: sandbox (read-only: nothing of yours writable; workspace-write: only its working folder; the network stays open)`;
}

export function sandboxTargetTitle(agent: AgentDefinition, paths: ConfigSnapshot["configPaths"]): string {
  return [
    `${agent.name}: write sandbox to`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"} (can only make the sandbox stricter)`,
  ].join("\n");
}

export function sandboxWrittenNotice(agentName: string, value: SandboxLevel | null, target: FileTarget, filePath: string | undefined, changed: boolean, effective: SandboxLevel): string {
  const where = filePath ?? target;
  if (!changed) return `${agentName}: sandbox unchanged in ${where}; nothing written.`;
  const done = value === null ? `${agentName}: sandbox cleared in ${where}.` : `${agentName}: sandbox ${value} saved to ${where}.`;
  return effective === value || value === null ? `${done} It runs with sandbox ${effective}.` : `${done} It still runs with sandbox ${effective}: only your own settings can loosen a sandbox.`;
}
