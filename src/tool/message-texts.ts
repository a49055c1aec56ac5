/**
 * What the main agent reads after `action: "message"`: a one-line acknowledgement, or a refusal that says what
 * to do instead. No em dashes.
 */
import { CHILD_MODE_ENV } from "../run/child-mode.ts";

export const MESSAGE_NEEDS_TASK_ID =
  'action=message needs "taskId": the id from the dispatch receipt (`Dispatched <agent>. taskId: <id>`) of a queued or running background task.';

export const MESSAGE_NEEDS_TEXT = 'action=message needs a non-empty "message": the text to send to the subagent. Nothing was sent.';

export const MESSAGE_IN_SYNC_MODE =
  "action=message reaches background subagent tasks, which exist only in the interactive TUI. Here each delegation runs synchronously inside its subagent call and has already ended when you can send anything; to continue one, dispatch again with its sessionId.";

export function messageSteered(taskId: string, agent: string): string {
  return `Message sent to ${taskId} (${agent}); it reaches the subagent before its next model call.`;
}

export function messageQueued(taskId: string, agent: string): string {
  return `Message added to queued task ${taskId} (${agent}); the subagent reads it with its task when it starts.`;
}

export function messageToFinished(taskId: string, status: string | undefined): string {
  const how = status ? `already finished (${status})` : "has already finished";
  return `Task ${taskId} ${how}; a message cannot reach it. To continue that subagent's conversation, dispatch again with sessionId="${taskId}" and your message as the task. Nothing was sent.`;
}

export function messageToUnknown(taskId: string): string {
  return `No background subagent task with taskId ${taskId} is in flight. Check the id against your dispatch receipts. Nothing was sent.`;
}

export function messageLimitReached(taskId: string, agent: string, max: number): string {
  return `Task ${taskId} (${agent}) has already received ${max} messages from you, the most one task takes; this one was not sent. Wait for its result, which arrives by itself, or cancel it (action="cancel") and dispatch again with everything it needs in the task.`;
}

export function messageUnsupported(taskId: string): string {
  return `Task ${taskId} runs as a JSON child (${CHILD_MODE_ENV}=json), which cannot receive messages. Nothing was sent.`;
}
