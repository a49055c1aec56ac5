/**
 * Where the worktrees live: `<agent dir>/subagent-worktrees/<task id>/`, outside every project's working tree,
 * one folder per task, beside the task's session folder (`<agent dir>/subagent-sessions/<task id>/`), so a
 * person finds both by the task id and a test's own agent dir keeps its worktrees to itself.
 */
import { isAbsolute, join, relative, sep } from "node:path";
import { idForMessage, isTaskId } from "../shared/task-id.ts";

export const WORKTREES_DIR_NAME = "subagent-worktrees";
export const BRANCH_PREFIX = "subagent/";

export function worktreesRoot(agentDir: string): string {
  return join(agentDir, WORKTREES_DIR_NAME);
}

/** A task's worktree folder. Throws for anything but a task id (an id never reaches the disk as a path). */
export function worktreePath(agentDir: string, taskId: string): string {
  if (!isTaskId(taskId)) throw new Error(`not a task id: ${JSON.stringify(idForMessage(taskId))}`);
  return join(worktreesRoot(agentDir), taskId);
}

export function branchName(taskId: string): string {
  return `${BRANCH_PREFIX}${taskId}`;
}

/** True when `folder` is `root` or inside it. */
export function isInside(root: string, folder: string): boolean {
  const rel = relative(root, folder);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
