/**
 * The file-system and memory side of /subagent-config: reads a snapshot (agents, config layers, `$models`,
 * the paths writes go to) and performs the writes through the write-back core, which checks everything
 * before any I/O and replaces files atomically under a lock.
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { discoverAgents, findProjectAgentsDir } from "../../agents/discover.ts";
import { applyAgentFilePatch, replaceAgentBody, setAgentBody, updateAgentFile } from "../../agents/edit-agent-file.ts";
import type { AgentEditOutcome } from "../../agents/edit-agent-file.ts";
import type { AgentDefinition } from "../../agents/types.ts";
import { loadConfig } from "../../config/load.ts";
import { CONFIG_FILE_NAME, findProjectPiDir, PROJECT_DIR_NAME, projectConfigPath, userAgentsDir, userConfigPath } from "../../shared/config-paths.ts";
import { getProcessOverrides, setProcessOverride } from "../../config/process-overrides.ts";
import type { ModelOverridePatch } from "../../config/process-overrides.ts";
import { writeModelOverride } from "../../config/write-model-override.ts";
import { addAvailableModel, removeAvailableModel } from "../../config/write-models-list.ts";
import { writeFileAtomic } from "../../shared/atomic-file.ts";
import { withFileLock } from "../../shared/file-lock.ts";
import { agentDir as piAgentDir, BUILTIN_AGENTS_DIR } from "../../shared/paths.ts";
import type { AgentFileChange, ConfigSnapshot, ConfigStore, FileTarget, WriteResult, WriteTarget } from "./config-types.ts";

export interface ConfigStoreOptions {
  cwd: string;
  /** pi's agent dir (default: PI_CODING_AGENT_DIR or ~/.pi/agent). */
  agentDir?: string;
  /** Where the walk up from cwd stops (default: the home directory). */
  home?: string;
  builtinDir?: string;
  /** The main agent's current model as `provider/id`. */
  inheritedModel?: string;
  /** The thinking level a child gets when nothing sets one. */
  inheritedThinking?: string;
  /** The models pi can use now, as `provider/id`. */
  registryModels?: string[];
  /** False when pi does not trust the project in this session: its agents and file are neither read nor offered. */
  projectTrusted?: boolean;
}

/**
 * The folder a project-level file goes in: the nearest `.pi/` walking up (as readers find it), else a new
 * `.pi/` in cwd. Undefined when cwd is the home folder itself: `~/.pi` is the user level, never a project.
 */
export function projectPiDirForWriting(cwd: string, home: string): string | undefined {
  const found = findProjectPiDir(cwd, home);
  if (found !== undefined) return found;
  return resolve(cwd) === resolve(home) ? undefined : join(resolve(cwd), PROJECT_DIR_NAME);
}

import { BUDGET_KEYS } from "../../budget/limits.ts";
import { TRUST_HOW_TO } from "../../authority/texts.ts";
function sameEntry(a: ModelOverridePatch | undefined, b: ModelOverridePatch | undefined): boolean {
  return a?.model === b?.model && a?.thinking === b?.thinking && BUDGET_KEYS.every((key) => a?.[key] === b?.[key]);
}

function noProjectError(): Error {
  return new Error("Not saved: there is no project here (the working directory is your home folder, whose .pi is the user level). Start pi in a project folder.");
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function applyChange(text: string, change: AgentFileChange, label: string): AgentEditOutcome {
  return change.kind === "body" ? replaceAgentBody(text, change.body, label) : applyAgentFilePatch(text, change.patch, label);
}

export function createConfigStore(options: ConfigStoreOptions): ConfigStore {
  const agentDirPath = options.agentDir ?? piAgentDir();
  const home = options.home ?? homedir();
  const builtinDir = options.builtinDir ?? BUILTIN_AGENTS_DIR;

  /** The project subagent-isolation.json: the one readers use, else one in a new `.pi/` in cwd. */
  const projectConfigForWriting = (): string | undefined => {
    const found = projectConfigPath(options.cwd, home);
    if (found !== undefined) return found;
    const piDir = projectPiDirForWriting(options.cwd, home);
    return piDir === undefined ? undefined : join(piDir, CONFIG_FILE_NAME);
  };

  /**
   * Where a built-in agent's project copy goes: the project agents folder discovery already reads (so a copy
   * never makes a nearer `.pi` the project and hides the others), else `agents/` in the `.pi` for writing.
   */
  const projectAgentsForWriting = (): string | undefined => {
    const found = findProjectAgentsDir(options.cwd, home);
    if (found !== undefined) return found;
    const piDir = projectPiDirForWriting(options.cwd, home);
    return piDir === undefined ? undefined : join(piDir, "agents");
  };

  const load = (): ConfigSnapshot => {
    const trusted = options.projectTrusted !== false;
    const discovery = discoverAgents({ cwd: options.cwd, agentDir: agentDirPath, home, builtinDir, projectAgents: trusted });
    const config = loadConfig({ cwd: options.cwd, agentDir: agentDirPath, home, project: trusted });
    const projectConfig = trusted ? projectConfigForWriting() : undefined;
    const projectAgents = trusted ? projectAgentsForWriting() : undefined;
    const snapshot: ConfigSnapshot = {
      agents: discovery.agents,
      layers: { user: config.user, project: config.project, process: config.process },
      models: config.models,
      configPaths: { user: userConfigPath(agentDirPath) },
      agentDirs: { user: userAgentsDir(agentDirPath) },
    };
    if (projectConfig !== undefined) snapshot.configPaths.project = projectConfig;
    if (projectAgents !== undefined) snapshot.agentDirs.project = projectAgents;
    if (options.inheritedModel !== undefined) snapshot.inheritedModel = options.inheritedModel;
    if (options.inheritedThinking !== undefined) snapshot.inheritedThinking = options.inheritedThinking;
    if (options.registryModels !== undefined) snapshot.registryModels = options.registryModels;
    if (!trusted) snapshot.projectUntrusted = true;
    return snapshot;
  };

  const configPath = (target: FileTarget): string => {
    if (target === "user") return userConfigPath(agentDirPath);
    if (options.projectTrusted === false) throw new Error(`Not saved: this project is not trusted in this session, so its subagent-isolation.json counts for nothing (${TRUST_HOW_TO}).`);
    const path = projectConfigForWriting();
    if (path === undefined) throw noProjectError();
    return path;
  };

  return {
    load,

    async writeModelConfig(target: WriteTarget, agentName: string, patch: ModelOverridePatch): Promise<WriteResult> {
      if (target === "process") {
        const before = getProcessOverrides()[agentName];
        setProcessOverride(agentName, patch);
        return { changed: !sameEntry(before, getProcessOverrides()[agentName]) };
      }
      const filePath = configPath(target);
      const { changed } = await writeModelOverride(filePath, agentName, patch);
      return { changed, filePath };
    },

    async changeAgentFile(agent: AgentDefinition, change: AgentFileChange): Promise<WriteResult> {
      if (agent.source === "builtin") throw new Error(`Not saved: ${agent.name} is a built-in agent; it is copied before it is edited.`);
      const { changed } = change.kind === "body" ? await setAgentBody(agent.filePath, change.body) : await updateAgentFile(agent.filePath, change.patch);
      return { changed, filePath: agent.filePath };
    },

    async copyBuiltinAgent(agent: AgentDefinition, destination: FileTarget, change: AgentFileChange): Promise<WriteResult> {
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

    async addModel(target: FileTarget, model: string): Promise<WriteResult> {
      const filePath = configPath(target);
      const { changed } = await addAvailableModel(filePath, model);
      return { changed, filePath };
    },

    async removeModel(target: FileTarget, model: string): Promise<WriteResult> {
      const filePath = configPath(target);
      const { changed } = await removeAvailableModel(filePath, model);
      return { changed, filePath };
    },
  };
}
