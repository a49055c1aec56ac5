// @ts-check
/**
 * Reads every config layer for a working directory: the user file, the nearest project file and the process
 * memory. Cheap (two small files), so callers read it fresh on each dispatch and each /subagent-config step.
 */
import { agentDir as piAgentDir } from "../shared/paths.js";
import { availableModels } from "./available-models.js";
import { projectConfigPath, userConfigPath } from "./paths.js";
import { processLayer } from "./process-overrides.js";
import { readConfigLayer } from "./read-layer.js";
/** @import { ConfigLayers } from "./resolve.js" */
/** @import { AvailableModels, ConfigLayer } from "./types.ts" */

/**
 * `warnings`: Every problem found in the two files, ready to show (see reportWarningsOnce).
 * @typedef {Required<ConfigLayers> & { models: AvailableModels, warnings: string[] }} LoadedConfig
 */

/**
 * @typedef {object} LoadConfigOptions
 * @property {string} cwd
 * @property {string} [agentDir]
 * @property {string} [home] Where the walk up from cwd stops (default: the home directory).
 */

/**
 * @param {LoadConfigOptions} options
 * @returns {LoadedConfig}
 */
export function loadConfig(options) {
  const userPath = userConfigPath(options.agentDir ?? piAgentDir());
  let projectPath = projectConfigPath(options.cwd, options.home);
  // pi's agent dir may itself be a project's `.pi` folder; one file is then one layer (user), not two.
  if (projectPath === userPath) projectPath = undefined;
  /** @type {ConfigLayer} */
  const user = readConfigLayer(userPath, "user");
  /** @type {ConfigLayer} */
  const project = readConfigLayer(projectPath, "project");
  const process = processLayer();
  return {
    user,
    project,
    process,
    models: availableModels({ user, project }),
    warnings: [...user.warnings, ...project.warnings],
  };
}
