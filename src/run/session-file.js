// @ts-check
/**
 * The child's session file. pi 0.73.1 has no `--session-id`, so we write the one-line session header
 * ourselves and start the child with `--session <file>`: pi then uses our id, and the same path resumes it.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { subagentSessionsDir } from "../shared/paths.js";
import { idForMessage, isTaskId } from "../tasks/task-id.js";

export const SESSION_FILE_NAME = "session.jsonl";

/**
 * A task's folder. Throws for anything but a task id: an id must never reach the disk as a path (`../x`).
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {string}
 */
export function taskDir(agentDir, taskId) {
  if (!isTaskId(taskId)) throw new Error(`not a task id: ${JSON.stringify(idForMessage(taskId))}`);
  return join(subagentSessionsDir(agentDir), taskId);
}

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {string}
 */
export function sessionFilePath(agentDir, taskId) {
  return join(taskDir(agentDir, taskId), SESSION_FILE_NAME);
}

/**
 * @param {string} taskId
 * @param {string} cwd
 * @param {Date} now
 * @returns {string}
 */
export function sessionHeaderLine(taskId, cwd, now) {
  return `${JSON.stringify({ type: "session", version: 3, id: taskId, timestamp: now.toISOString(), cwd })}\n`;
}

/**
 * Creates a new session file for `taskId` (refusing to overwrite one that exists). `history` (session entry
 * lines, see run/fork-history.js) follows the header for a child that starts on a forked conversation.
 * @param {string} agentDir
 * @param {string} taskId
 * @param {string} cwd
 * @param {Date} [now]
 * @param {string} [history]
 * @returns {string}
 */
export function createSessionFile(agentDir, taskId, cwd, now = new Date(), history = "") {
  const file = sessionFilePath(agentDir, taskId);
  mkdirSync(taskDir(agentDir, taskId), { recursive: true, mode: 0o700 });
  writeFileSync(file, sessionHeaderLine(taskId, cwd, now) + history, { flag: "wx", mode: 0o600 });
  return file;
}

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {boolean}
 */
export function sessionFileExists(agentDir, taskId) {
  return existsSync(sessionFilePath(agentDir, taskId));
}
