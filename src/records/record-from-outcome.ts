import { hasAnyLimit } from "../budget/limits.ts";
import type { BudgetLimits } from "../budget/limits.ts";
import type { RunOutcome } from "../run/types.ts";
import type { CancelledBy, DispatchMode, TaskMessage, TaskOrigin, TaskRecord, WorkflowMembership } from "./types.ts";
import type { WorktreeReport } from "../worktree/types.ts";
import type { ResolvedModelConfig } from "../config/types.ts";

export interface RecordContext {
  taskId: string;
  agent: string;
  task: string;
  mode: DispatchMode;
  sessionFile: string;
  cwd: string;
  dispatchedAt: number;
  parentSessionId?: string;
  cancelledBy?: CancelledBy;
  cancelReason?: string;
  messages?: readonly TaskMessage[];
  budget?: BudgetLimits;
  budgetNotes?: readonly string[];
  origin?: TaskOrigin;
  workflow?: WorkflowMembership;
  /** The model and thinking the child was started with, with their sources. */
  resolved?: ResolvedModelConfig;
  /** The task's worktree, finished (committed or removed) as the record is made. */
  worktree?: WorktreeFinisher;
}

/** Ends a task's worktree and says what became of it (see src/worktree/lease.ts). */
export type WorktreeFinisher = {
  finish(run: { taskId: string; agent: string; task: string; status: string }): WorktreeReport;
};

/**
 * The durable record of a run that ended. Pure, except that a task with a worktree has it finished here (its
 * changes committed on its branch, or the unchanged worktree removed), so every way a task ends does it.
 */
export function recordFromOutcome(context: RecordContext, outcome: RunOutcome): TaskRecord {
  const record: TaskRecord = {
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
    model: outcome.model ?? context.resolved?.model.value,
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
  if (context.resolved?.model.source) record.modelSource = context.resolved.model.source;
  if (context.resolved?.thinking.value) {
    record.thinking = context.resolved.thinking.value;
    if (context.resolved.thinking.source) record.thinkingSource = context.resolved.thinking.source;
  }
  if (context.origin) record.origin = { ...context.origin };
  if (context.workflow) record.workflow = { ...context.workflow };
  if (context.messages && context.messages.length > 0) record.messages = [...context.messages];
  if (hasAnyLimit(context.budget)) record.budget = { ...context.budget };
  if (context.budgetNotes && context.budgetNotes.length > 0) record.budgetNotes = [...context.budgetNotes];
  if (outcome.partial) record.partialTools = outcome.partial.tools;
  if (outcome.usageNote) record.usageNote = outcome.usageNote;
  if (outcome.skippedOutput) record.skippedOutput = outcome.skippedOutput;
  if (outcome.unanswered && outcome.unanswered.length > 0) record.unansweredQuestions = [...outcome.unanswered];
  if (context.worktree) record.worktree = context.worktree.finish({ taskId: record.taskId, agent: record.agent, task: record.task, status: record.status });
  if (outcome.status === "cancelled") {
    record.cancelledBy = context.cancelledBy ?? (outcome.stopReason === "killed_on_shutdown" ? "none" : "user");
    if (context.cancelReason) record.cancelReason = context.cancelReason;
  }
  return record;
}
