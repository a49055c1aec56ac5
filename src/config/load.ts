/**
 * Reads every config layer for a working directory: the user file, the nearest project file and the process
 * memory. Cheap (two small files), so callers read it fresh on each dispatch and each /subagent-config step.
 */
import { existsSync } from "node:fs";
import { agentDir as piAgentDir } from "../shared/paths.ts";
import { availableModels } from "./available-models.ts";
import { projectConfigPath, userConfigPath } from "../shared/config-paths.ts";
import { processLayer } from "./process-overrides.ts";
import { readConfigLayer } from "./read-layer.ts";
import type { ConfigLayers } from "./resolve.ts";
import type { AvailableModels, ConfigLayer } from "./types.ts";

/** `warnings`: Every problem found in the two files, ready to show (see reportWarningsOnce). */
export type LoadedConfig = Required<ConfigLayers> & {
  models: AvailableModels;
  warnings: string[];
  /** The project file that exists but was not read (an untrusted project). */
  projectSkipped?: string;
};

export interface LoadConfigOptions {
  cwd: string;
  agentDir?: string;
  /** Where the walk up from cwd stops (default: the home directory). */
  home?: string;
  /** False in a project pi does not trust: its file counts for nothing (the layer is empty, `skipped` names it). */
  project?: boolean;
}

export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const userPath = userConfigPath(options.agentDir ?? piAgentDir());
  let projectPath = projectConfigPath(options.cwd, options.home);
  // pi's agent dir may itself be a project's `.pi` folder; one file is then one layer (user), not two.
  if (projectPath === userPath) projectPath = undefined;
  const skipped = options.project === false && projectPath !== undefined && existsSync(projectPath) ? projectPath : undefined;
  if (options.project === false) projectPath = undefined;
  const user: ConfigLayer = readConfigLayer(userPath, "user");
  const project: ConfigLayer = readConfigLayer(projectPath, "project");
  const process = processLayer();
  return {
    ...(skipped ? { projectSkipped: skipped } : {}),
    user,
    project,
    process,
    models: availableModels({ user, project }),
    warnings: [...user.warnings, ...project.warnings],
  };
}
