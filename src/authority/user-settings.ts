/**
 * The two settings that widen what a subagent may do, `$projectAgents` and `$toolCeiling`. Only the person's
 * user-level subagent-isolation.json can set them: a project file that tries is ignored, with a warning, since
 * a repository must not lift the limits that guard the person from it. Pure.
 */
import type { ConfigLayer } from "../config/types.ts";
import { DEFAULT_PROJECT_AGENTS_POLICY, parseProjectAgentsPolicy } from "./project-trust.ts";
import type { ProjectAgentsPolicy } from "./project-trust.ts";
import { parseToolCeiling } from "./tool-ceiling.ts";
import type { ToolCeilingSetting } from "./tool-ceiling.ts";

export const PROJECT_AGENTS_KEY = "$projectAgents";
export const TOOL_CEILING_KEY = "$toolCeiling";

export interface AuthoritySettings {
  projectAgents: ProjectAgentsPolicy;
  toolCeiling: ToolCeilingSetting;
  warnings: string[];
}

type Layer = Pick<ConfigLayer, "settings" | "filePath">;

function where(layer: Layer, name: string): string {
  return `pi-subagent-dispatch: ${layer.filePath ?? `${name} subagent-isolation.json`}`;
}

export function readAuthoritySettings(layers: { user: Layer; project: Layer }): AuthoritySettings {
  const warnings: string[] = [];
  const user = layers.user.settings ?? {};
  let projectAgents = DEFAULT_PROJECT_AGENTS_POLICY;
  let toolCeiling: ToolCeilingSetting = "session";
  if (Object.hasOwn(user, PROJECT_AGENTS_KEY)) {
    const value = parseProjectAgentsPolicy(user[PROJECT_AGENTS_KEY]);
    if (value) projectAgents = value;
    else warnings.push(`${where(layers.user, "user")}: "${PROJECT_AGENTS_KEY}" must be "ask", "ask-or-refuse", "always" or "never"; using "ask"`);
  }
  if (Object.hasOwn(user, TOOL_CEILING_KEY)) {
    const value = parseToolCeiling(user[TOOL_CEILING_KEY]);
    if (value) toolCeiling = value;
    else warnings.push(`${where(layers.user, "user")}: "${TOOL_CEILING_KEY}" must be "session" or "off"; the ceiling holds`);
  }
  const project = layers.project.settings ?? {};
  for (const key of [PROJECT_AGENTS_KEY, TOOL_CEILING_KEY]) {
    if (Object.hasOwn(project, key)) warnings.push(`${where(layers.project, "project")}: "${key}" can only be set in your user-level subagent-isolation.json; ignored`);
  }
  return { projectAgents, toolCeiling, warnings };
}
