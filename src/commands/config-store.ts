/**
 * `/subagent-config`'s store: the snapshot it edits and its writes, the external editor, and the thinking level a child gets when nothing sets one.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isThinkingLevel, type ThinkingLevel } from "../shared/thinking.ts";
import { mkdir, readFile, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { discoverAgents, findProjectAgentsDir } from "../agents/discover.ts";
import { readClaudeAgentsSetting } from "../agents/claude-agent.ts";
import {
  applyAgentFilePatch,
  replaceAgentBody,
  setAgentBody,
  updateAgentFile,
  type AgentEditOutcome,
} from "../agents/edit-agent-file.ts";
import type { AgentDefinition } from "../agents/parse.ts";
import { loadConfig, getProcessOverrides, setProcessOverride, type ModelOverridePatch } from "../config/load.ts";
import {
  CONFIG_FILE_NAME,
  findProjectPiDir,
  PROJECT_DIR_NAME,
  projectConfigPath,
  userAgentsDir,
  userConfigPath,
} from "../shared/config-paths.ts";
import { writeModelOverride, addAvailableModel, removeAvailableModel } from "../config/write.ts";
import { writeFileAtomic, withFileLock } from "../shared/safe-write.ts";
import { agentDir as piAgentDir, BUILTIN_AGENTS_DIR } from "../shared/this-process.ts";
import type {
  AgentFileChange,
  ConfigSnapshot,
  ConfigStore,
  FileTarget,
  WriteResult,
  WriteTarget,
  BodyEditOutcome,
} from "./config-editor.ts";
import { BUDGET_KEYS } from "../budget/limits.ts";
import { TRUST_HOW_TO } from "../authority/trust.ts";
import { spawnSync, type SpawnSyncOptions, type SpawnSyncReturns } from "node:child_process";

/*
 * The thinking level pi starts a session with when nothing asks for one: `defaultThinkingLevel` of pi's own
 * `settings.json`, the project's (`<cwd>/.pi/settings.json`, only where pi trusts the project) over the user's
 * (`<agent dir>/settings.json`), else pi's built-in default, `medium`. A child given no `--thinking` gets this,
 * lowered to `off` by pi for a model without reasoning. Read for /subagent-config's labels only: an unreadable or
 * odd file counts as unset.
 */
/** pi's own default (`DEFAULT_THINKING_LEVEL` in both pis). */
const PI_BUILTIN_THINKING: ThinkingLevel = "medium";
/** pi's settings files are small; anything larger is not read. */
const SETTINGS_MAX_BYTES = 1024 * 1024;

function settingsLevel(path: string): ThinkingLevel | undefined {
  try {
    const text = readFileSync(path, "utf8");
    if (text.length > SETTINGS_MAX_BYTES) return undefined;
    const parsed: unknown = JSON.parse(text);
    const level =
      parsed && typeof parsed === "object"
        ? (parsed as { defaultThinkingLevel?: unknown }).defaultThinkingLevel
        : undefined;
    return isThinkingLevel(level) ? level : undefined;
  } catch {
    return undefined;
  }
}

export function piDefaultThinking(options: { agentDir: string; cwd: string; projectTrusted: boolean }): ThinkingLevel {
  const project = options.projectTrusted ? settingsLevel(join(options.cwd, ".pi", "settings.json")) : undefined;
  return project ?? settingsLevel(join(options.agentDir, "settings.json")) ?? PI_BUILTIN_THINKING;
}

/** What a child gets: pi turns thinking off for a model without reasoning (and when it has no model at all). */
export function inheritedThinking(
  defaultLevel: ThinkingLevel,
  model: { reasoning?: boolean } | undefined,
): ThinkingLevel {
  return model?.reasoning ? defaultLevel : "off";
}

/*
 * The file-system and memory side of /subagent-config: reads a snapshot (agents, config layers, `$models`,
 * the paths writes go to) and performs the writes through the write-back core, which checks everything
 * before any I/O and replaces files atomically under a lock.
 */
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
function projectPiDirForWriting(cwd: string, home: string): string | undefined {
  const found = findProjectPiDir(cwd, home);
  if (found !== undefined) return found;
  return resolve(cwd) === resolve(home) ? undefined : join(resolve(cwd), PROJECT_DIR_NAME);
}

function sameEntry(a: ModelOverridePatch | undefined, b: ModelOverridePatch | undefined): boolean {
  return a?.model === b?.model && a?.thinking === b?.thinking && BUDGET_KEYS.every((key) => a?.[key] === b?.[key]);
}

function noProjectError(): Error {
  return new Error(
    "Not saved: there is no project here (the working directory is your home folder, whose .pi is the user level). Start pi in a project folder.",
  );
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
  return change.kind === "body"
    ? replaceAgentBody(text, change.body, label)
    : applyAgentFilePatch(text, change.patch, label);
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
    const config = loadConfig({ cwd: options.cwd, agentDir: agentDirPath, home, project: trusted });
    const discovery = discoverAgents({
      cwd: options.cwd,
      agentDir: agentDirPath,
      home,
      builtinDir,
      projectAgents: trusted,
      claudeAgents: readClaudeAgentsSetting(config).enabled,
    });
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
    if (options.projectTrusted === false)
      throw new Error(
        `Not saved: this project is not trusted in this session, so its subagent-isolation.json counts for nothing (${TRUST_HOW_TO}).`,
      );
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
      if (agent.source === "builtin")
        throw new Error(`Not saved: ${agent.name} is a built-in agent; it is copied before it is edited.`);
      const { changed } =
        change.kind === "body"
          ? await setAgentBody(agent.filePath, change.body)
          : await updateAgentFile(agent.filePath, change.patch);
      return { changed, filePath: agent.filePath };
    },

    async copyBuiltinAgent(
      agent: AgentDefinition,
      destination: FileTarget,
      change: AgentFileChange,
    ): Promise<WriteResult> {
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
          throw new Error(
            `Not saved: ${filePath} already exists (a file that does not define ${agent.name}); edit or remove it first.`,
          );
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

/*
 * Editing an agent's body in the person's own editor: the body goes to a private temp file, the editor runs
 * in the terminal (`$EDITOR`, else `$VISUAL`, else `vi`; a value may carry arguments, as in `code --wait`),
 * and the file is read back once the editor exits. Inside pi's TUI this happens the way pi itself opens the
 * external editor (Ctrl+G): stop the TUI, run the editor synchronously with the terminal inherited, start the
 * TUI again and redraw everything.
 */
const FALLBACK_EDITOR = "vi";

/** The editor command line: `$EDITOR`, then `$VISUAL`, then `vi` (blank values do not count). */
export function editorCommand(env: NodeJS.ProcessEnv = process.env): string {
  for (const name of ["EDITOR", "VISUAL"] as const) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return FALLBACK_EDITOR;
}

/** Splits `code --wait` into the program and its arguments (plain whitespace, as pi does for Ctrl+G). */
export function splitCommand(command: string): [string, ...string[]] {
  const [program = FALLBACK_EDITOR, ...args] = command.trim().split(/\s+/);
  return [program, ...args];
}

export type SpawnEditor = (
  program: string,
  args: string[],
  options: SpawnSyncOptions,
) => SpawnSyncReturns<Buffer | string>;

function errorReason(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") {
    return error instanceof Error ? `${error.code}: ${error.message}` : error.code;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the editor on `text` and returns what it left in the file. Blocks until the editor exits. The temp
 * file lives in a private (0700) folder named after the agent, so the editor shows a meaningful name and
 * picks Markdown highlighting; it is always removed.
 */
export function runEditorOnText(
  agentName: string,
  text: string,
  env: NodeJS.ProcessEnv = process.env,
  spawnEditor: SpawnEditor = spawnSync,
): BodyEditOutcome {
  const command = editorCommand(env);
  const [program, ...args] = splitCommand(command);
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), "pi-subagent-body-"));
    const file = join(dir, `${agentName}.md`);
    writeFileSync(file, text.endsWith("\n") ? text : `${text}\n`, { encoding: "utf8", mode: 0o600 });
    const result = spawnEditor(program, [...args, file], {
      stdio: "inherit",
      env,
      shell: process.platform === "win32",
    });
    if (result.error) return { kind: "launch-failed", command, reason: errorReason(result.error) };
    if (result.status !== 0) return { kind: "exit-code", command, code: result.status, signal: result.signal };
    return { kind: "edited", text: readFileSync(file, "utf8") };
  } catch (error) {
    return { kind: "launch-failed", command, reason: errorReason(error) };
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The part of pi's TUI the editor hand-over needs. */
export interface StoppableTui {
  stop: () => void;
  start: () => void;
  requestRender: (force?: boolean) => void;
}

/** Hands the terminal to the editor and takes it back, whatever happens in between. */
export function runEditorOutsideTui(tui: StoppableTui, edit: () => BodyEditOutcome): BodyEditOutcome {
  tui.stop();
  try {
    return edit();
  } finally {
    tui.start();
    // The editor used the whole screen (often the alternate screen): redraw everything.
    tui.requestRender(true);
  }
}
