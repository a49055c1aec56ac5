// @ts-check
/**
 * Agent discovery: the three folders, read and merged. Cheap enough to run on every dispatch: it lists three
 * folders, reads only their `*.md` files, and walks up from cwd looking for `.pi/agents`.
 */
import { findNearestProjectDir, PROJECT_AGENTS_RELATIVE, userAgentsDir } from "../config/paths.js";
import { agentDir as piAgentDir, BUILTIN_AGENTS_DIR } from "../shared/paths.js";
import { mergeAgentTiers, scopeIncludesProject, scopeIncludesUser } from "./merge.js";
import { readAgentsDir } from "./read-dir.js";
/** @import { AgentsDirContents } from "./read-dir.js" */
/** @import { AgentScope, DiscoveryResult } from "./types.ts" */

/**
 * @typedef {object} DiscoverOptions
 * @property {string} cwd
 * @property {AgentScope} [scope]
 * @property {string} [agentDir] pi's agent dir (default: `PI_CODING_AGENT_DIR` or `~/.pi/agent`).
 * @property {string} [builtinDir] The package's built-in agents (default: this package's `agents/`).
 * @property {string} [home] Where the walk up from cwd stops (default: the home directory).
 */

/** @type {AgentsDirContents} */
const NOTHING = { agents: [], warnings: [] };

/**
 * @param {string} cwd
 * @param {string} [home]
 * @returns {string | undefined}
 */
export function findProjectAgentsDir(cwd, home) {
  return findNearestProjectDir(cwd, PROJECT_AGENTS_RELATIVE, home);
}

/**
 * @param {DiscoverOptions} options
 * @returns {DiscoveryResult}
 */
export function discoverAgents(options) {
  const scope = options.scope ?? "both";
  const builtinDir = options.builtinDir ?? BUILTIN_AGENTS_DIR;
  const userDir = userAgentsDir(options.agentDir ?? piAgentDir());
  let projectDir = findProjectAgentsDir(options.cwd, options.home);
  // When pi's agent dir is itself a project's `.pi` folder, the two tiers are one folder: read it once, as user.
  if (projectDir === userDir) projectDir = undefined;

  const builtin = readAgentsDir(builtinDir, "builtin");
  const user = scopeIncludesUser(scope) ? readAgentsDir(userDir, "user") : NOTHING;
  const project = scopeIncludesProject(scope) && projectDir !== undefined ? readAgentsDir(projectDir, "project") : NOTHING;

  /** @type {DiscoveryResult} */
  const result = {
    agents: mergeAgentTiers({ builtin: builtin.agents, user: user.agents, project: project.agents }, scope),
    warnings: [...builtin.warnings, ...user.warnings, ...project.warnings],
    userAgentsDir: userDir,
    builtinAgentsDir: builtinDir,
  };
  if (projectDir !== undefined) result.projectAgentsDir = projectDir;
  return result;
}
