/**
 * Which sandbox level a subagent runs with, and who decided it. Pure.
 *
 * The person's own settings set the level: their user-level entry for the agent, else the agent's frontmatter
 * (a built-in or user agent only), else their `"$sandbox"` default, else `off`. Everything else can only make it
 * stricter (off → workspace-write → read-only), never looser: a project agent's frontmatter, the project's entry
 * for the agent, the project's `"$sandbox"`, and the call's `sandbox` parameter. So a repository or a model
 * cannot lift a sandbox the person asked for.
 */
import type { AgentDefinition } from "../agents/types.ts";
import { stricterLevel } from "./levels.ts";
import type { SandboxLevel } from "./levels.ts";

/** Where the level in force came from. */
export type SandboxSource = "user" | "frontmatter" | "$sandbox" | "project" | "project $sandbox" | "call" | "default";

export interface ResolvedSandbox {
  level: SandboxLevel;
  source: SandboxSource;
}

export interface SandboxInputs {
  agent: Pick<AgentDefinition, "sandbox" | "source">;
  /** The user-level entry's `sandbox` for this agent. */
  userEntry?: SandboxLevel;
  /** `"$sandbox"` in the user-level file. */
  userDefault?: SandboxLevel;
  /** The project entry's `sandbox` for this agent (tightens only). */
  projectEntry?: SandboxLevel;
  /** `"$sandbox"` in the project file (tightens only). */
  projectDefault?: SandboxLevel;
  /** The call's `sandbox` parameter (tightens only). */
  call?: SandboxLevel;
}

export function resolveSandbox(inputs: SandboxInputs): ResolvedSandbox {
  const ownFrontmatter = inputs.agent.source === "project" ? undefined : inputs.agent.sandbox;
  let resolved: ResolvedSandbox;
  if (inputs.userEntry !== undefined) resolved = { level: inputs.userEntry, source: "user" };
  else if (ownFrontmatter !== undefined) resolved = { level: ownFrontmatter, source: "frontmatter" };
  else if (inputs.userDefault !== undefined) resolved = { level: inputs.userDefault, source: "$sandbox" };
  else resolved = { level: "off", source: "default" };
  const tighteners: [SandboxLevel | undefined, SandboxSource][] = [
    [inputs.agent.source === "project" ? inputs.agent.sandbox : undefined, "frontmatter"],
    [inputs.projectDefault, "project $sandbox"],
    [inputs.projectEntry, "project"],
    [inputs.call, "call"],
  ];
  for (const [level, source] of tighteners) {
    if (level === undefined) continue;
    // Only a strictly tighter level changes the source: an equal one adds nothing.
    if (stricterLevel(level, resolved.level) !== resolved.level) resolved = { level, source };
  }
  return resolved;
}
