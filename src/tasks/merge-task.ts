/**
 * One merge step for a task's kept worktree, shared by `/subagent-worktrees merge` and the tool's
 * `action: "merge"`: a running task is never merged; `confirm: false` only says what a merge would do (the
 * tool's first step); `confirm: true` merges. Returns the text to show and whether it succeeded.
 */
import { oneLine } from "../shared/text.ts";
import { mergeChallenge, mergeOutcomeText, mergeRefusalText } from "../worktree/merge-texts.ts";
import { isLockLive, readSessionLock } from "../run/session-files.ts";
import { readRecord } from "../records/record-store.ts";
import type { ListedWorktree } from "../worktree/lease.ts";
import { mergeTaskWorktree, planMerge } from "../worktree/merge.ts";

export interface MergeStep {
  ok: boolean;
  text: string;
  /** True when this step only asked for the confirmation. */
  confirmRequired?: boolean;
  commit?: string;
}

function recordOf(agentDir: string, taskId: string) {
  try {
    return readRecord(agentDir, taskId);
  } catch {
    return undefined;
  }
}

export function mergeStep(cwd: string, agentDir: string, worktree: ListedWorktree, confirm: boolean): MergeStep {
  const lock = readSessionLock(agentDir, worktree.taskId);
  if (lock && isLockLive(lock)) {
    return {
      ok: false,
      text: `Subagent task ${worktree.taskId} is still running in ${worktree.path}; wait for its result or cancel it first. Nothing was merged.`,
    };
  }
  if (!confirm) {
    const planned = planMerge(cwd, worktree);
    if (!planned.ok) return { ok: false, text: mergeRefusalText(worktree.taskId, planned.refusal) };
    return { ok: true, confirmRequired: true, text: mergeChallenge(planned.plan, worktree.taskId) };
  }
  const record = recordOf(agentDir, worktree.taskId);
  const message = `Merge subagent/${worktree.taskId}${record ? ` (${record.agent}: ${oneLine(record.task, 60)})` : ""}`;
  const outcome = mergeTaskWorktree(cwd, worktree, message);
  if (outcome.kind === "merged") return { ok: true, text: mergeOutcomeText(outcome), commit: outcome.commit };
  if (outcome.kind === "conflict" || outcome.kind === "failed") return { ok: false, text: mergeOutcomeText(outcome) };
  return { ok: false, text: mergeRefusalText(worktree.taskId, outcome) };
}
