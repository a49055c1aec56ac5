// @ts-check
import { hasAnyLimit } from "../budget/limits.js";
/** @import { BudgetLimits } from "../budget/limits.js" */
/** @import { RunOutcome } from "../run/types.ts" */
/** @import { CancelledBy, DispatchMode, TaskMessage, TaskOrigin, TaskRecord } from "./types.ts" */
/** @import { WorktreeReport } from "../worktree/types.js" */

/**
 * @typedef {object} RecordContext
 * @property {string} taskId
 * @property {string} agent
 * @property {string} task
 * @property {DispatchMode} mode
 * @property {string} sessionFile
 * @property {string} cwd
 * @property {number} dispatchedAt
 * @property {string} [parentSessionId]
 * @property {CancelledBy} [cancelledBy]
 * @property {string} [cancelReason]
 * @property {readonly TaskMessage[]} [messages]
 * @property {BudgetLimits} [budget]
 * @property {readonly string[]} [budgetNotes]
 * @property {TaskOrigin} [origin]
 * @property {WorktreeFinisher} [worktree] The task's worktree, finished (committed or removed) as the record is made.
 */

/**
 * Ends a task's worktree and says what became of it (see src/worktree/lease.js).
 * @typedef {{
 *   finish(run: { taskId: string; agent: string; task: string; status: string }): WorktreeReport;
 * }} WorktreeFinisher
 */

/**
 * The durable record of a run that ended. Pure, except that a task with a worktree has it finished here (its
 * changes committed on its branch, or the unchanged worktree removed), so every way a task ends does it.
 * @param {RecordContext} context
 * @param {RunOutcome} outcome
 * @returns {TaskRecord}
 */
export function recordFromOutcome(context, outcome) {
  /** @type {TaskRecord} */
  const record = {
    version: 1,
    taskId: context.taskId,
    agent: context.agent,
    task: context.task,
    mode: context.mode,
    status: outcome.status,
    exitCode: outcome.exitCode,
    stopReason: outcome.stopReason,
    errorMessage: outcome.errorMessage,
    usage: outcome.usage,
    model: outcome.model,
    durationMs: outcome.durationMs,
    dispatchedAt: context.dispatchedAt,
    startedAt: outcome.startedAt,
    finishedAt: outcome.finishedAt,
    output: outcome.output,
    stderrTail: outcome.stderrTail || undefined,
    sessionFile: context.sessionFile,
    cwd: context.cwd,
    parentSessionId: context.parentSessionId,
    delivered: false,
  };
  if (context.origin) record.origin = { ...context.origin };
  if (context.messages && context.messages.length > 0) record.messages = [...context.messages];
  if (hasAnyLimit(context.budget)) record.budget = { ...context.budget };
  if (context.budgetNotes && context.budgetNotes.length > 0) record.budgetNotes = [...context.budgetNotes];
  if (outcome.partial) record.partialTools = outcome.partial.tools;
  if (context.worktree) record.worktree = context.worktree.finish({ taskId: record.taskId, agent: record.agent, task: record.task, status: record.status });
  if (outcome.status === "cancelled") {
    record.cancelledBy = context.cancelledBy ?? (outcome.stopReason === "killed_on_shutdown" ? "none" : "user");
    if (context.cancelReason) record.cancelReason = context.cancelReason;
  }
  return record;
}
