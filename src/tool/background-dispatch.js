// @ts-check
/**
 * The `subagent` tool's background path (interactive TUI): a dispatch answers at once with the one-line
 * receipt; a cancel goes through the two-step challenge and confirmation.
 */
/** @import { AgentToolResult, ExtensionContext } from "@mariozechner/pi-coding-agent" */
import { oneLine } from "../shared/format.js";
/** @import { BackgroundTasks } from "../tasks/background-tasks.js" */
import { CANCEL_TOO_LATE_STATUS } from "../tasks/registry.js";
import { readRecord } from "../tasks/record-store.js";
import { isTaskId } from "../tasks/task-id.js";
import {
  CANCEL_NEEDS_REASON,
  CANCEL_NEEDS_TASK_ID,
  cancelAlreadyFinished,
  cancelChallenge,
  cancelInvalidTaskId,
  cancelRequested,
  cancelUnknownTask,
} from "./cancel-texts.js";
import {
  MESSAGE_NEEDS_TASK_ID,
  MESSAGE_NEEDS_TEXT,
  messageQueued,
  messageSteered,
  messageToFinished,
  messageToUnknown,
  messageUnsupported,
} from "./message-texts.js";
import { childTextProblem } from "../run/task-text.js";
/** @import { PreparedRun } from "./prepare-dispatch.js" */
import { worktreeReceiptNote } from "../worktree/texts.js";
/** @import { BackgroundDispatcher } from "./register-tool.js" */
/** @import { SubagentParams } from "./schema.ts" */

/** The longest cancel reason kept (it is quoted in the cancelled task's envelope). */
export const CANCEL_REASON_MAX = 500;

/**
 * @param {string} agent
 * @param {string} taskId
 * @param {{ position: number, running: number }} [queue]
 * @returns {string}
 */
export function receiptText(agent, taskId, queue) {
  const receipt = `Dispatched ${agent}. taskId: ${taskId}`;
  if (!queue) return receipt;
  const running = `${queue.running} ${queue.running === 1 ? "subagent" : "subagents"} already running`;
  return `${receipt} (queued: ${running}, this one is number ${queue.position} in line and starts when a slot frees)`;
}

/**
 * @param {string} agent
 * @param {string} taskId
 * @param {string} errorMessage
 * @returns {string}
 */
export function couldNotStartMessage(agent, taskId, errorMessage) {
  return `Subagent ${agent} was not dispatched: ${errorMessage}. Nothing is running for taskId ${taskId}; its failed result is recorded and also arrives as a [subagent-result] notification.`;
}

/**
 * @typedef {object} ReceiptDetails
 * @property {true} receipt
 * @property {string} taskId
 * @property {string} agent
 * @property {string} task
 * @property {boolean} queued
 */

/**
 * @param {() => BackgroundTasks} tasks
 * @param {() => string} agentDir
 * @param {() => number} [now]
 * @returns {BackgroundDispatcher}
 */
export function createBackgroundDispatcher(tasks, agentDir, now = Date.now) {
  return {
    /**
     * @param {PreparedRun} prepared
     * @param {ExtensionContext} ctx
     * @returns {AgentToolResult<unknown>}
     */
    dispatch(prepared, ctx) {
      const result = tasks().dispatch(prepared, ctx.sessionManager.getSessionId());
      // Never a "Dispatched" receipt for a task that is not running: the call fails, saying why.
      if ("failed" in result) throw new Error(couldNotStartMessage(prepared.agent.name, prepared.taskId, result.errorMessage));
      /** @type {ReceiptDetails} */
      const details = {
        receipt: true,
        taskId: prepared.taskId,
        agent: prepared.agent.name,
        task: prepared.task,
        queued: !result.started,
      };
      const receipt = receiptText(prepared.agent.name, prepared.taskId, result.started ? undefined : result);
      const text = prepared.worktree ? `${receipt}${worktreeReceiptNote(prepared.worktree)}` : receipt;
      return { content: [{ type: "text", text }], details };
    },

    /**
     * @param {SubagentParams} params
     * @returns {AgentToolResult<unknown>}
     */
    cancel(params) {
      const taskId = (params.taskId ?? "").trim();
      if (!taskId) throw new Error(CANCEL_NEEDS_TASK_ID);
      if (!isTaskId(taskId)) throw new Error(cancelInvalidTaskId(taskId));
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

    /**
     * @param {SubagentParams} params
     * @returns {AgentToolResult<unknown>}
     */
    message(params) {
      const taskId = (params.taskId ?? "").trim();
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
        case "unknown": {
          const record = readRecord(agentDir(), taskId);
          throw new Error(record ? messageToFinished(taskId, record.status) : messageToUnknown(taskId));
        }
      }
    },
  };
}
