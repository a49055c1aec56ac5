/**
 * Agent discovery: the three folders, read and merged. Cheap enough to run on every dispatch: it lists three
 * folders, reads only their `*.md` files, and walks up from cwd looking for `.pi/agents`.
 */
import { findNearestProjectDir, PROJECT_AGENTS_RELATIVE, userAgentsDir } from "../shared/config-paths.ts";
import { agentDir as piAgentDir, BUILTIN_AGENTS_DIR } from "../shared/paths.ts";
import { mergeAgentTiers, scopeIncludesProject, scopeIncludesUser } from "./merge.ts";
import { readAgentsDir } from "./read-dir.ts";
import type { AgentsDirContents } from "./read-dir.ts";
import type { AgentScope, DiscoveryResult } from "./types.ts";

export interface DiscoverOptions {
  cwd: string;
  scope?: AgentScope;
  /** pi's agent dir (default: `PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  agentDir?: string;
  /** The package's built-in agents (default: this package's `agents/`). */
  builtinDir?: string;
  /** Where the walk up from cwd stops (default: the home directory). */
  home?: string;
  /**
   * False when the project's agents must not count (an untrusted project, or the person's `$projectAgents:
   * "never"`): the folder is not read, and the result names it as skipped.
   */
  projectAgents?: boolean;
}

const NOTHING: AgentsDirContents = { agents: [], warnings: [] };

export function findProjectAgentsDir(cwd: string, home?: string): string | undefined {
  return findNearestProjectDir(cwd, PROJECT_AGENTS_RELATIVE, home);
}

export function discoverAgents(options: DiscoverOptions): DiscoveryResult {
  const scope = options.scope ?? "both";
  const builtinDir = options.builtinDir ?? BUILTIN_AGENTS_DIR;
  const userDir = userAgentsDir(options.agentDir ?? piAgentDir());
  let projectDir = findProjectAgentsDir(options.cwd, options.home);
  // When pi's agent dir is itself a project's `.pi` folder, the two tiers are one folder: read it once, as user.
  if (projectDir === userDir) projectDir = undefined;

  const builtin = readAgentsDir(builtinDir, "builtin");
  // Read whatever the scope: a project agent that takes a user agent's name keeps that agent's protection.
  const user = readAgentsDir(userDir, "user");
  const projectAllowed = options.projectAgents !== false;
  const project = projectAllowed && scopeIncludesProject(scope) && projectDir !== undefined ? readAgentsDir(projectDir, "project") : NOTHING;

  const result: DiscoveryResult = {
    agents: mergeAgentTiers({ builtin: builtin.agents, user: user.agents, project: project.agents }, scope),
    warnings: [...builtin.warnings, ...(scopeIncludesUser(scope) ? user.warnings : []), ...project.warnings],
    userAgentsDir: userDir,
    builtinAgentsDir: builtinDir,
  };
  if (projectDir !== undefined && projectAllowed) result.projectAgentsDir = projectDir;
  if (projectDir !== undefined && !projectAllowed) result.projectAgentsSkipped = projectDir;
  return result;
}
