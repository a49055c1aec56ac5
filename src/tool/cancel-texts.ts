/**
 * What the main agent reads when it cancels a background task with `action: "cancel"`: the challenge of the
 * first call (nothing changes), the confirmation of the second, and the refusals. No em dashes.
 */
import { formatElapsed, oneLine } from "../shared/format.ts";
import type { InFlightTask } from "../delivery/envelope.ts";
import { idForMessage } from "../shared/task-id.ts";

export const CANCEL_NEEDS_TASK_ID =
  'action=cancel needs "taskId": the id from the dispatch receipt (`Dispatched <agent>. taskId: <id>`) of a running background task.';

/**
 * A taskId that is not a task id at all (never looked up, never used as a path). It states the rule and gives
 * no example id: a model shown one may copy it, as the sessionId error also avoids.
 */
export function cancelInvalidTaskId(taskId: string): string {
  return `"${idForMessage(taskId)}" is not a taskId this tool handed out. Pass exactly the taskId of a dispatch receipt (\`Dispatched <agent>. taskId: <id>\`) of a running background task; never make one up. Nothing was cancelled.`;
}

export function cancelUnknownTask(taskId: string): string {
  return `No background subagent task with taskId ${idForMessage(taskId)} is in flight. Check the id against your dispatch receipts; a task that already finished cannot be cancelled.`;
}

export function cancelAlreadyFinished(taskId: string, status: string): string {
  return `Task ${taskId} already finished (${status}); there is nothing to cancel. Its result is delivered as a [subagent-result] notification.`;
}

export const CANCEL_NEEDS_REASON =
  'action=cancel with confirm=true needs a non-empty "reason" saying why the task is cancelled. Nothing was cancelled.';

export interface ChallengeFacts {
  taskId: string;
  agent: string;
  task: string;
  /** Time since dispatch. */
  elapsedMs: number;
  /** Time since the child last reported anything; undefined when it never did. */
  lastProgressAgeMs?: number;
  queued: boolean;
}

export function cancelChallenge(facts: ChallengeFacts): string {
  const progress = facts.lastProgressAgeMs === undefined ? "none reported yet" : `${formatElapsed(facts.lastProgressAgeMs)} ago`;
  return [
    `Confirm before cancelling. Nothing has been cancelled yet.`,
    `- Task: ${facts.taskId} (${facts.agent}): ${oneLine(facts.task, 200)}`,
    `- ${facts.queued ? "Queued for" : "Running for"}: ${formatElapsed(facts.elapsedMs)}`,
    `- Last progress: ${progress}`,
    "Cancelling stops the subagent: it is asked to end its turn, then its processes are ended; only what it wrote so far and the tools it ran are kept, the rest of its work is lost. This cannot be undone.",
    `To cancel, call subagent again with action="cancel", taskId="${facts.taskId}", confirm=true and a non-empty reason. Do not cancel a task only because it takes long.`,
  ].join("\n");
}

/** The other tasks in flight at the moment a cancel is requested (the cancelled task has not ended yet). */
export function inFlightNow(others: readonly InFlightTask[]): string {
  if (others.length === 0) return "No other tasks are in flight now.";
  return [`Other tasks in flight now: ${others.length}`, ...others.map((t) => `- ${t.taskId} (${t.agent}): ${oneLine(t.task, 120)}`)].join("\n");
}

export function cancelRequested(taskId: string, agent: string, others: readonly InFlightTask[]): string {
  return [
    `Cancel request sent for ${taskId} (${agent}). Its cancelled result will arrive as a [subagent-result] notification.`,
    "",
    inFlightNow(others),
  ].join("\n");
}

/** The first call of a workflow cancel: what would be cancelled (nothing is yet). */
export function workflowCancelChallenge(kind: "batch" | "chain", workflowId: string, running: readonly InFlightTask[]): string {
  const later = kind === "chain" ? " and the chain starts no further step" : "";
  return [
    `Confirm before cancelling. Nothing has been cancelled yet.`,
    `- ${kind === "chain" ? "Chain" : "Batch"} ${workflowId}, parts in flight: ${running.length}`,
    ...running.map((t) => `- ${t.taskId} (${t.agent}): ${oneLine(t.task, 120)}`),
    `Cancelling stops every part in flight${later}; what they wrote so far is kept in the one [subagent-result] of the ${kind}. To cancel one part only, pass its own taskId. This cannot be undone.`,
    `To cancel, call subagent again with action="cancel", taskId="${workflowId}", confirm=true and a non-empty reason.`,
  ].join("\n");
}

export function workflowCancelRequested(kind: "batch" | "chain", workflowId: string, cancelled: number): string {
  return `Cancel request sent for ${cancelled} ${cancelled === 1 ? "part" : "parts"} of ${kind} ${workflowId}. Its one [subagent-result] arrives once every part has ended.`;
}
