/**
 * Where the project-level files live. "Project" means the nearest folder walking up from the working
 * directory, stopping before the home directory: `~/.pi` is the user level (pi's agent dir, `~/.pi/agent`),
 * never a project.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { agentDir as piAgentDir } from "./this-process.ts";

export const CONFIG_FILE_NAME = "subagent-isolation.json";
export const PROJECT_DIR_NAME = ".pi";
/** A project's agents folder, relative to the folder it belongs to. */
export const PROJECT_AGENTS_RELATIVE = join(PROJECT_DIR_NAME, "agents");

/** A project's Claude Code agents folder, relative to the folder it belongs to. */
export const PROJECT_CLAUDE_AGENTS_RELATIVE = join(".claude", "agents");

/** `~/.claude/agents`: the person's Claude Code agents folder (`home` defaults to the home directory). */
export function claudeUserAgentsDir(home: string = homedir()): string {
  return join(home, PROJECT_CLAUDE_AGENTS_RELATIVE);
}

/** `<agent dir>/agents`: the user's agents folder. */
export function userAgentsDir(agentDirPath: string = piAgentDir()): string {
  return join(agentDirPath, "agents");
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The nearest existing folder `<dir>/<relative>` for `dir` = cwd, its parent, and so on up to the root, never
 * looking at the home directory or above it when cwd is inside home.
 */
export function findNearestProjectDir(cwd: string, relative: string, home: string = homedir()): string | undefined {
  const stop = resolve(home);
  let dir = resolve(cwd);
  for (;;) {
    if (dir === stop) return undefined;
    const candidate = join(dir, relative);
    if (isDirectory(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The nearest `.pi/` folder (the project's pi folder), if any. */
export function findProjectPiDir(cwd: string, home?: string): string | undefined {
  return findNearestProjectDir(cwd, PROJECT_DIR_NAME, home);
}

/** Largest subagent-isolation.json read: a few agents' models, never megabytes. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

/** `<agent dir>/subagent-isolation.json`. */
export function userConfigPath(agentDirPath: string = piAgentDir()): string {
  return join(agentDirPath, CONFIG_FILE_NAME);
}

/** `subagent-isolation.json` in the nearest `.pi/` folder; undefined when there is no `.pi/` up to home. */
export function projectConfigPath(cwd: string, home?: string): string | undefined {
  const piDir = findProjectPiDir(cwd, home);
  return piDir === undefined ? undefined : join(piDir, CONFIG_FILE_NAME);
}
