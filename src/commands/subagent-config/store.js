// @ts-check
/**
 * The file-system and memory side of /subagent-config: reads a snapshot (agents, config layers, `$models`,
 * the paths writes go to) and performs the writes through the write-back core, which checks everything
 * before any I/O and replaces files atomically under a lock.
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { discoverAgents, findProjectAgentsDir } from "../../agents/discover.js";
import { applyAgentFilePatch, replaceAgentBody, setAgentBody, updateAgentFile } from "../../agents/edit-agent-file.js";
/** @import { AgentEditOutcome } from "../../agents/edit-agent-file.js" */
/** @import { AgentDefinition } from "../../agents/types.ts" */
import { loadConfig } from "../../config/load.js";
import { CONFIG_FILE_NAME, findProjectPiDir, PROJECT_DIR_NAME, projectConfigPath, userAgentsDir, userConfigPath } from "../../config/paths.js";
import { getProcessOverrides, setProcessOverride } from "../../config/process-overrides.js";
/** @import { ModelOverridePatch } from "../../config/process-overrides.js" */
import { writeModelOverride } from "../../config/write-model-override.js";
import { addAvailableModel, removeAvailableModel } from "../../config/write-models-list.js";
import { writeFileAtomic } from "../../shared/atomic-file.js";
import { withFileLock } from "../../shared/file-lock.js";
import { agentDir as piAgentDir, BUILTIN_AGENTS_DIR } from "../../shared/paths.js";
/** @import { AgentFileChange, ConfigSnapshot, ConfigStore, FileTarget, WriteResult, WriteTarget } from "./types.ts" */

/**
 * @typedef {object} ConfigStoreOptions
 * @property {string} cwd
 * @property {string} [agentDir] pi's agent dir (default: PI_CODING_AGENT_DIR or ~/.pi/agent).
 * @property {string} [home] Where the walk up from cwd stops (default: the home directory).
 * @property {string} [builtinDir]
 * @property {string} [inheritedModel] The main agent's current model as `provider/id`.
 */

/**
 * The folder a project-level file goes in: the nearest `.pi/` walking up (as readers find it), else a new
 * `.pi/` in cwd. Undefined when cwd is the home folder itself: `~/.pi` is the user level, never a project.
 * @param {string} cwd
 * @param {string} home
 * @returns {string | undefined}
 */
export function projectPiDirForWriting(cwd, home) {
  const found = findProjectPiDir(cwd, home);
  if (found !== undefined) return found;
  return resolve(cwd) === resolve(home) ? undefined : join(resolve(cwd), PROJECT_DIR_NAME);
}

import { BUDGET_KEYS } from "../../budget/limits.js";
/**
 * @param {ModelOverridePatch | undefined} a
 * @param {ModelOverridePatch | undefined} b
 * @returns {boolean}
 */
function sameEntry(a, b) {
  return a?.model === b?.model && a?.thinking === b?.thinking && BUDGET_KEYS.every((key) => a?.[key] === b?.[key]);
}

/** @returns {Error} */
function noProjectError() {
  return new Error("Not saved: there is no project here (the working directory is your home folder, whose .pi is the user level). Start pi in a project folder.");
}

/**
 * @param {string} path
 * @returns {Promise<boolean>}
 */
async function exists(path) {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {string} text
 * @param {AgentFileChange} change
 * @param {string} label
 * @returns {AgentEditOutcome}
 */
function applyChange(text, change, label) {
  return change.kind === "body" ? replaceAgentBody(text, change.body, label) : applyAgentFilePatch(text, change.patch, label);
}

/**
 * @param {ConfigStoreOptions} options
 * @returns {ConfigStore}
 */
export function createConfigStore(options) {
  const agentDirPath = options.agentDir ?? piAgentDir();
  const home = options.home ?? homedir();
  const builtinDir = options.builtinDir ?? BUILTIN_AGENTS_DIR;

  /**
   * The project subagent-isolation.json: the one readers use, else one in a new `.pi/` in cwd.
   * @returns {string | undefined}
   */
  const projectConfigForWriting = () => {
    const found = projectConfigPath(options.cwd, home);
    if (found !== undefined) return found;
    const piDir = projectPiDirForWriting(options.cwd, home);
    return piDir === undefined ? undefined : join(piDir, CONFIG_FILE_NAME);
  };

  /**
   * Where a built-in agent's project copy goes: the project agents folder discovery already reads (so a copy
   * never makes a nearer `.pi` the project and hides the others), else `agents/` in the `.pi` for writing.
   * @returns {string | undefined}
   */
  const projectAgentsForWriting = () => {
    const found = findProjectAgentsDir(options.cwd, home);
    if (found !== undefined) return found;
    const piDir = projectPiDirForWriting(options.cwd, home);
    return piDir === undefined ? undefined : join(piDir, "agents");
  };

  /** @returns {ConfigSnapshot} */
  const load = () => {
    const discovery = discoverAgents({ cwd: options.cwd, agentDir: agentDirPath, home, builtinDir });
    const config = loadConfig({ cwd: options.cwd, agentDir: agentDirPath, home });
    const projectConfig = projectConfigForWriting();
    const projectAgents = projectAgentsForWriting();
    /** @type {ConfigSnapshot} */
    const snapshot = {
      agents: discovery.agents,
      layers: { user: config.user, project: config.project, process: config.process },
      models: config.models,
      configPaths: { user: userConfigPath(agentDirPath) },
      agentDirs: { user: userAgentsDir(agentDirPath) },
    };
    if (projectConfig !== undefined) snapshot.configPaths.project = projectConfig;
    if (projectAgents !== undefined) snapshot.agentDirs.project = projectAgents;
    if (options.inheritedModel !== undefined) snapshot.inheritedModel = options.inheritedModel;
    return snapshot;
  };

  /**
   * @param {FileTarget} target
   * @returns {string}
   */
  const configPath = (target) => {
    if (target === "user") return userConfigPath(agentDirPath);
    const path = projectConfigForWriting();
    if (path === undefined) throw noProjectError();
    return path;
  };

  return {
    load,

    /**
     * @param {WriteTarget} target
     * @param {string} agentName
     * @param {ModelOverridePatch} patch
     * @returns {Promise<WriteResult>}
     */
    async writeModelConfig(target, agentName, patch) {
      if (target === "process") {
        const before = getProcessOverrides()[agentName];
        setProcessOverride(agentName, patch);
        return { changed: !sameEntry(before, getProcessOverrides()[agentName]) };
      }
      const filePath = configPath(target);
      const { changed } = await writeModelOverride(filePath, agentName, patch);
      return { changed, filePath };
    },

    /**
     * @param {AgentDefinition} agent
     * @param {AgentFileChange} change
     * @returns {Promise<WriteResult>}
     */
    async changeAgentFile(agent, change) {
      if (agent.source === "builtin") throw new Error(`Not saved: ${agent.name} is a built-in agent; it is copied before it is edited.`);
      const { changed } = change.kind === "body" ? await setAgentBody(agent.filePath, change.body) : await updateAgentFile(agent.filePath, change.patch);
      return { changed, filePath: agent.filePath };
    },

    /**
     * @param {AgentDefinition} agent
     * @param {FileTarget} destination
     * @param {AgentFileChange} change
     * @returns {Promise<WriteResult>}
     */
    async copyBuiltinAgent(agent, destination, change) {
      const dir = destination === "user" ? userAgentsDir(agentDirPath) : projectAgentsForWriting();
      if (dir === undefined) throw noProjectError();
      const filePath = join(dir, `${agent.name}.md`);
      // Everything is checked on the built-in's text before the folder or the copy exists.
      const original = await readFile(agent.filePath, "utf8");
      const outcome = applyChange(original, change, filePath);
      const text = outcome.changed ? outcome.text : original;
      await mkdir(dir, { recursive: true });
      await withFileLock(filePath, async () => {
        if (await exists(filePath)) {
          throw new Error(`Not saved: ${filePath} already exists (a file that does not define ${agent.name}); edit or remove it first.`);
        }
        await writeFileAtomic(filePath, text);
      });
      return { changed: true, filePath };
    },

    /**
     * @param {FileTarget} target
     * @param {string} model
     * @returns {Promise<WriteResult>}
     */
    async addModel(target, model) {
      const filePath = configPath(target);
      const { changed } = await addAvailableModel(filePath, model);
      return { changed, filePath };
    },

    /**
     * @param {FileTarget} target
     * @param {string} model
     * @returns {Promise<WriteResult>}
     */
    async removeModel(target, model) {
      const filePath = configPath(target);
      const { changed } = await removeAvailableModel(filePath, model);
      return { changed, filePath };
    },
  };
}
