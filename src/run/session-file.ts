/**
 * The child's session file. pi 0.73.1 has no `--session-id`, so we write the one-line session header
 * ourselves and start the child with `--session <file>`: pi then uses our id, and the same path resumes it.
 */
import { lstatSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { subagentSessionsDir } from "../shared/paths.ts";
import { createStateFileSync } from "../shared/state-file.ts";
import { idForMessage, isTaskId } from "../shared/task-id.ts";

export const SESSION_FILE_NAME = "session.jsonl";

/** A task's folder. Throws for anything but a task id: an id must never reach the disk as a path (`../x`). */
export function taskDir(agentDir: string, taskId: string): string {
  if (!isTaskId(taskId)) throw new Error(`not a task id: ${JSON.stringify(idForMessage(taskId))}`);
  return join(subagentSessionsDir(agentDir), taskId);
}

export function sessionFilePath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), SESSION_FILE_NAME);
}

export function sessionHeaderLine(taskId: string, cwd: string, now: Date): string {
  return `${JSON.stringify({ type: "session", version: 3, id: taskId, timestamp: now.toISOString(), cwd })}\n`;
}

/**
 * Creates a new session file for `taskId` (refusing to overwrite one that exists). `history` (session entry
 * lines, see run/fork-history.ts) follows the header for a child that starts on a forked conversation.
 */
export function createSessionFile(agentDir: string, taskId: string, cwd: string, now: Date = new Date(), history: string = ""): string {
  const file = sessionFilePath(agentDir, taskId);
  mkdirSync(taskDir(agentDir, taskId), { recursive: true, mode: 0o700 });
  // Exclusive and checked: a forked history cut short by a full disk is removed, never resumed half.
  createStateFileSync(file, sessionHeaderLine(taskId, cwd, now) + history);
  return file;
}

/**
 * Whether the task has a session to resume: a regular file, never a link or a FIFO (the child would append
 * through a planted link to its target, or hang on a FIFO); anything else counts as no session.
 */
export function sessionFileExists(agentDir: string, taskId: string): boolean {
  try {
    return lstatSync(sessionFilePath(agentDir, taskId)).isFile();
  } catch {
    return false;
  }
}
