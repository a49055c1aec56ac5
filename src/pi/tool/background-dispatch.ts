/**
 * The `subagent` tool's background path (interactive TUI): a dispatch answers at once with the one-line
 * receipt; a cancel goes through the two-step challenge and confirmation.
 */
import type { AgentToolResult, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { oneLine } from "../../shared/format.ts";
import type { BackgroundTasks } from "../../tasks/background-tasks.ts";
import { CANCEL_TOO_LATE_STATUS, MAX_AGENT_MESSAGES_PER_TASK } from "../../tasks/registry.ts";
import { readRecord } from "../../records/record-store.ts";
import { resolveTaskPrefix } from "../../commands/task-prefix.ts";
import { isTaskId } from "../../shared/task-id.ts";
import {
  CANCEL_NEEDS_REASON,
  CANCEL_NEEDS_TASK_ID,
  cancelAlreadyFinished,
  cancelChallenge,
  cancelInvalidTaskId,
  cancelRequested,
  cancelUnknownTask,
  workflowCancelChallenge,
  workflowCancelRequested,
} from "../../tool/cancel-texts.ts";
import { dispatchBackgroundWorkflow } from "./workflow-background.ts";
import {
  MESSAGE_NEEDS_TASK_ID,
  MESSAGE_NEEDS_TEXT,
  messageLimitReached,
  messageQueued,
  messageSteered,
  messageToFinished,
  messageToUnknown,
  messageUnsupported,
} from "../../tool/message-texts.ts";
import { childTextProblem } from "../../run/task-text.ts";
import type { PreparedRun } from "../../tool/prepare-dispatch.ts";
import { worktreeReceiptNote } from "../../worktree/texts.ts";
import type { BackgroundDispatcher } from "./register-tool.ts";
import type { SubagentParams } from "../../tool/schema.ts";

/** The longest cancel reason kept (it is quoted in the cancelled task's envelope). */
export const CANCEL_REASON_MAX = 500;

export function receiptText(agent: string, taskId: string, queue?: { position: number; running: number }): string {
  const receipt = `Dispatched ${agent}. taskId: ${taskId}`;
  if (!queue) return receipt;
  const running = `${queue.running} ${queue.running === 1 ? "subagent" : "subagents"} already running`;
  return `${receipt} (queued: ${running}, this one is number ${queue.position} in line and starts when a slot frees)`;
}

export function couldNotStartMessage(agent: string, taskId: string, errorMessage: string): string {
  return `Subagent ${agent} was not dispatched: ${errorMessage}. Nothing is running for taskId ${taskId}; its failed result is recorded and also arrives as a [subagent-result] notification.`;
}

export interface ReceiptDetails {
  receipt: true;
  taskId: string;
  agent: string;
  task: string;
  queued: boolean;
}

export function createBackgroundDispatcher(tasks: () => BackgroundTasks, agentDir: () => string, now: () => number = Date.now): BackgroundDispatcher {
  /** `action: "cancel"` with a batch or chain id: the same two steps as for one task, for every part in flight. */
  const cancelWorkflow = (kind: "batch" | "chain", workflowId: string, params: SubagentParams): AgentToolResult<unknown> => {
    const running = tasks()
      .workflows.partsInFlight(workflowId)
      .flatMap((taskId) => {
        const task = tasks().registry.get(taskId);
        return task ? [{ taskId, agent: task.agent, task: task.task }] : [];
      });
    if (params.confirm !== true) {
      return { content: [{ type: "text", text: workflowCancelChallenge(kind, workflowId, running) }], details: { confirmRequired: true, taskId: workflowId } };
    }
    const reason = oneLine(params.reason ?? "", CANCEL_REASON_MAX);
    if (!reason) throw new Error(CANCEL_NEEDS_REASON);
    const cancelled = tasks().cancelWorkflow(workflowId, "agent", reason) ?? 0;
    return {
      content: [{ type: "text", text: workflowCancelRequested(kind, workflowId, cancelled) }],
      details: { cancelRequested: true, taskId: workflowId, reason },
    };
  };

  /**
   * The full id behind what the model passed: a whole id as it is, or the short id a person read off the widget
   * or a card (a unique start or end of a task, batch or chain in flight here); anything else stays as typed.
   */
  const inFlightId = (typed: string): string => {
    if (isTaskId(typed)) return typed;
    const running = tasks().snapshot();
    const candidates = [...running.map((task) => task.taskId), ...tasks().workflows.ids()].map((taskId) => ({ taskId }));
    const resolved = resolveTaskPrefix(typed, candidates);
    return resolved.kind === "found" ? resolved.task.taskId : typed;
  };

  return {
    dispatch(prepared: PreparedRun, ctx: ExtensionContext, askPerson = true): AgentToolResult<unknown> {
      const result = tasks().dispatch(prepared, ctx.sessionManager.getSessionId(), askPerson);
      // Never a "Dispatched" receipt for a task that is not running: the call fails, saying why.
      if ("failed" in result) throw new Error(couldNotStartMessage(prepared.agent.name, prepared.taskId, result.errorMessage));
      const details: ReceiptDetails = {
        receipt: true,
        taskId: prepared.taskId,
        agent: prepared.agent.name,
        task: prepared.task,
        queued: !result.started,
      };
      const receipt = receiptText(prepared.agent.name, prepared.taskId, result.started ? undefined : result);
      const placed = prepared.worktree ? `${receipt}${worktreeReceiptNote(prepared.worktree)}` : receipt;
      // What the tool ceiling cut is said at once, so the main agent does not expect the child to edit or run.
      const notes = [placed];
      if (prepared.origin?.sandbox) notes.push(`- Sandbox: ${prepared.origin.sandbox}`);
      if (prepared.origin?.toolsNotGranted) notes.push(prepared.origin.toolsNotGranted);
      const text = notes.join("\n");
      return { content: [{ type: "text", text }], details };
    },

    dispatchWorkflow: (workflow, admit, ctx) => dispatchBackgroundWorkflow(workflow, admit, ctx, tasks()),

    cancel(params: SubagentParams): AgentToolResult<unknown> {
      const taskId = inFlightId((params.taskId ?? "").trim());
      if (!taskId) throw new Error(CANCEL_NEEDS_TASK_ID);
      if (!isTaskId(taskId)) throw new Error(cancelInvalidTaskId(taskId));
      const workflowKind = tasks().workflows.kindOf(taskId);
      if (workflowKind) return cancelWorkflow(workflowKind, taskId, params);
      const running = tasks().registry.get(taskId);
      if (!running) {
        const record = readRecord(agentDir(), taskId);
        throw new Error(record ? cancelAlreadyFinished(taskId, record.status) : cancelUnknownTask(taskId));
      }
      if (params.confirm !== true) {
        const lastEventAt = running.state && running.state.events > 0 ? running.state.lastEventAt : undefined;
        const text = cancelChallenge({
          taskId,
          agent: running.agent,
          task: running.task,
          elapsedMs: now() - running.dispatchedAt,
          lastProgressAgeMs: lastEventAt === undefined ? undefined : now() - lastEventAt,
          queued: running.status === "queued",
        });
        return { content: [{ type: "text", text }], details: { confirmRequired: true, taskId, agent: running.agent } };
      }
      // One line, bounded: the reason is repeated in the envelope, where a line break or `---` would break its shape.
      const reason = oneLine(params.reason ?? "", CANCEL_REASON_MAX);
      if (!reason) throw new Error(CANCEL_NEEDS_REASON);
      if (!tasks().cancel(taskId, "agent", reason)) throw new Error(cancelAlreadyFinished(taskId, CANCEL_TOO_LATE_STATUS));
      const others = tasks()
        .snapshot()
        .filter((task) => task.taskId !== taskId)
        .map((task) => ({ taskId: task.taskId, agent: task.agent, task: task.task }));
      return {
        content: [{ type: "text", text: cancelRequested(taskId, running.agent, others) }],
        details: { cancelRequested: true, taskId, agent: running.agent, reason },
      };
    },

    message(params: SubagentParams): AgentToolResult<unknown> {
      const taskId = inFlightId((params.taskId ?? "").trim());
      if (!taskId) throw new Error(MESSAGE_NEEDS_TASK_ID);
      const text = params.message ?? "";
      if (!text.trim()) throw new Error(MESSAGE_NEEDS_TEXT);
      const textProblem = childTextProblem(text, "message");
      if (textProblem) throw new Error(textProblem);
      // An id that is no task id never touches the disk, and is echoed cut short.
      if (!isTaskId(taskId)) throw new Error(messageToUnknown(oneLine(taskId, 60)));
      const task = tasks().registry.get(taskId);
      const outcome = tasks().registry.message(taskId, "agent", text);
      switch (outcome) {
        case "steered":
        case "queued": {
          const agent = task?.agent ?? "subagent";
          const line = outcome === "steered" ? messageSteered(taskId, agent) : messageQueued(taskId, agent);
          return { content: [{ type: "text", text: line }], details: { messageSent: outcome, taskId, agent } };
        }
        case "finished":
          throw new Error(messageToFinished(taskId, readRecord(agentDir(), taskId)?.status));
        case "unsupported":
          throw new Error(messageUnsupported(taskId));
        case "limit":
          throw new Error(messageLimitReached(taskId, task?.agent ?? "subagent", MAX_AGENT_MESSAGES_PER_TASK));
        case "unknown": {
          const record = readRecord(agentDir(), taskId);
          throw new Error(record ? messageToFinished(taskId, record.status) : messageToUnknown(taskId));
        }
      }
    },
  };
}
