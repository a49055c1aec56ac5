/**
 * Which sandbox level a subagent runs with, and who decided it. Pure.
 *
 * The person's own settings set the level: their user-level entry for the agent, else the agent's frontmatter
 * (a built-in or user agent only), else their `"$sandbox"` default, else `off`. Everything else can only make it
 * stricter (off → workspace-write → read-only), never looser: a project agent's frontmatter, the project's entry
 * for the agent, the project's `"$sandbox"`, and the call's `sandbox` parameter. So a repository or a model
 * cannot lift a sandbox the person asked for. A project agent named like a built-in or user agent starts from that
 * agent's frontmatter, as if it were that agent: a planted `.pi/agents/reviewer.md` cannot shed the sandbox the
 * person's `reviewer` has.
 */
import type { AgentDefinition } from "../agents/types.ts";
import { stricterLevel } from "../sandbox/levels.ts";
import type { ResolvedSandbox, SandboxLevel, SandboxSource } from "../sandbox/levels.ts";

export type { ResolvedSandbox, SandboxSource } from "../sandbox/levels.ts";

export interface SandboxInputs {
  agent: Pick<AgentDefinition, "sandbox" | "source" | "shadows">;
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
  const ownFrontmatter = inputs.agent.source === "project" ? inputs.agent.shadows?.sandbox : inputs.agent.sandbox;
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

/**
 * A resumed task keeps the stricter of the sandbox it ran in and the one this call resolves: resuming a read-only
 * task as another agent (or after a setting changed) never lifts it. `recorded` absent: it ran without one.
 */
export function keepRecordedSandbox(resolved: ResolvedSandbox, recorded: SandboxLevel | undefined): ResolvedSandbox {
  if (recorded === undefined || stricterLevel(recorded, resolved.level) === resolved.level) return resolved;
  return { level: recorded, source: "resumed task" };
}
