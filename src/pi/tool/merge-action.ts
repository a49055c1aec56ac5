/**
 * The tool's `action: "merge"`: brings a task's kept worktree branch into the current branch in two steps, as
 * cancel does: the first call only says what the merge would change; the same call with `confirm: true` merges.
 * Works in every mode (worktrees are on disk, not in the background registry). Every refusal is thrown.
 */
import type { AgentToolResult } from "@mariozechner/pi-coding-agent";
import { isTaskId } from "../../shared/task-id.ts";
import { oneLine } from "../../shared/format.ts";
import { listOurWorktrees } from "../../worktree/list.ts";
import { mergeStep } from "../../tasks/merge-task.ts";
import type { SubagentParams } from "../../tool/schema.ts";

export const MERGE_NEEDS_TASK_ID = 'action "merge" needs the taskId of a task that ran with isolation "worktree" (its result names the branch subagent/<taskId>). Nothing was merged.';

export function mergeAction(params: SubagentParams, cwd: string, agentDir: string): AgentToolResult<unknown> {
  const taskId = (params.taskId ?? "").trim();
  if (!taskId) throw new Error(MERGE_NEEDS_TASK_ID);
  if (!isTaskId(taskId)) throw new Error(`"${oneLine(taskId, 60)}" is not a taskId. ${MERGE_NEEDS_TASK_ID}`);
  const listing = listOurWorktrees(cwd, agentDir);
  if (!listing.ok) throw new Error(`${listing.message} Nothing was merged.`);
  const worktree = listing.worktrees.find((candidate) => candidate.taskId === taskId);
  if (!worktree) throw new Error(`No kept subagent worktree of task ${taskId} in this repository (an unchanged one was removed when the task ended). Nothing was merged.`);
  const step = mergeStep(cwd, agentDir, worktree, params.confirm === true);
  if (!step.ok) throw new Error(step.text);
  return { content: [{ type: "text", text: step.text }], details: { taskId, ...(step.confirmRequired ? { confirmRequired: true } : { merged: true, commit: step.commit }) } };
}
