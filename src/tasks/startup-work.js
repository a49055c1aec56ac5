// @ts-check
/**
 * Whether the start-up sweep has anything to look at: a prompt folder of ours in the temp folder, or a task
 * folder holding a run lock. Two directory listings and a stat per task folder, with nothing beyond Node's own
 * modules, so a start with nothing left over (nearly every start) never loads the clean-up's modules at all.
 */
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROMPT_DIR_PREFIX } from "../run/prompt-dir.js";
import { subagentSessionsDir } from "../shared/paths.js";
import { isTaskId } from "./task-id.js";

/** The run lock's file name in a task folder (src/run/session-lock.js writes it). */
export const RUN_LOCK_FILE_NAME = "run.lock";

/**
 * The tasks of `agentDir` whose folder holds a run lock.
 * @param {string} agentDir
 * @returns {string[]}
 */
export function lockedTaskIds(agentDir) {
  const dir = subagentSessionsDir(agentDir);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory() && isTaskId(entry.name) && existsSync(join(dir, entry.name, RUN_LOCK_FILE_NAME)))
    .map((entry) => entry.name);
}

/**
 * @param {string} [base]
 * @returns {boolean}
 */
export function hasPromptDirs(base = tmpdir()) {
  try {
    return readdirSync(base).some((name) => name.startsWith(PROMPT_DIR_PREFIX));
  } catch {
    return false;
  }
}

/**
 * @param {string} agentDir
 * @param {string} [tempDir]
 * @returns {boolean}
 */
export function startupSweepHasWork(agentDir, tempDir = tmpdir()) {
  return hasPromptDirs(tempDir) || lockedTaskIds(agentDir).length > 0;
}
