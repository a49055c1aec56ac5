/**
 * The file that holds an agent's body for the child's `--append-system-prompt`: `agent-prompt.md` in the task's
 * folder, written (mode 0600) after the run's lock is taken and removed before it is released. A pi killed hard
 * leaves it beside the lock, and the start-up clean-up that reaps the run removes both, so no listing of the temp
 * folder is ever needed for it (src/run/prompt-dir.ts keeps the sweep of the temp folders earlier versions used).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { taskDir } from "./session-file.ts";
import { createStateFileSync } from "../shared/state-file.ts";

export const AGENT_PROMPT_FILE_NAME = "agent-prompt.md";

export function agentPromptPath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), AGENT_PROMPT_FILE_NAME);
}

/**
 * Writes the body for a run of `taskId` (whose folder exists: its session file is made first) and returns the
 * file's path. A resumed task's earlier file is replaced.
 */
export function writeAgentPrompt(agentDir: string, taskId: string, body: string): string {
  const path = agentPromptPath(agentDir, taskId);
  // Removed first so the mode is 0600 also when an older file is replaced.
  rmSync(path, { force: true });
  createStateFileSync(path, body);
  return path;
}

export function removeAgentPrompt(agentDir: string, taskId: string): void {
  rmSync(agentPromptPath(agentDir, taskId), { force: true });
}
