/**
 * A task's record: its types, how it is made from a run's outcome, and how its model, output and details read.
 */
import type { SandboxLevel } from "../sandbox/levels.ts";
import { hasAnyLimit, type BudgetLimits } from "../budget/limits.ts";
import { oneLine, type UsageTotals } from "../shared/text.ts";
import type { RunStatus, SkippedOutput, RunOutcome } from "../run/event-reducer.ts";
import type { DeliverableNote } from "../run/deliverable.ts";
import type { VerifyReport } from "../run/verify.ts";
import type { WorktreeReport } from "../worktree/worktree.ts";
import type { ValueSource, ResolvedModelConfig } from "../config/load.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";
import { formatPartialOutput } from "../run/outcome.ts";

/** Who ended a cancelled task: the person (/subagent-cancel), the main agent (action=cancel), or nobody (shutdown). */
export type CancelledBy = "user" | "agent" | "none";

/** A message sent to a task while it was queued or running (`action: "message"` or /subagent-message). */
export interface TaskMessage {
  at: number;
  /** `agent`: the main agent; `user`: the person. */
  from: "agent" | "user";
  text: string;
  /** `steer`: sent to the running child; `queued`: appended to the task before it started. */
  delivery: "steer" | "queued";
}

/**
 * Where a task sits in the tree of subagents and what it started from: `depth` 1 is a child of the main agent,
 * `maxDepth` the tree's limit (PI_SUBAGENT_MAX_DEPTH); `context` `fork` with the number of messages it was given.
 */
export interface TaskOrigin {
  depth: number;
  maxDepth: number;
  context: "fresh" | "fork";
  forkedMessages?: number;
  /** `tools not granted: bash (the main session has read-only tools)`: what the tool ceiling cut. */
  toolsNotGranted?: string;
  /** The sandbox the child ran in (absent: none). */
  sandbox?: Exclude<SandboxLevel, "off">;
  /** The child's tools list (`--tools`; absent: none, pi's defaults): a resume gets no wider. */
  tools?: string[];
  /** The child was started ahead of the task and waited for it (src/warm/warm-pool.ts); absent: started for it. */
  warm?: boolean;
}

/**
 * The batch (`tasks`) or chain (`chain`) a background task is a part of: its result reaches the main agent
 * inside the workflow's one combined envelope, never on its own. `index` counts from 1.
 */
export interface WorkflowMembership {
  id: string;
  kind: "batch" | "chain";
  index: number;
  total: number;
}

/** How the task was dispatched: blocking (print/JSON/RPC) or in the background (TUI). */
export type DispatchMode = "sync" | "async";

/**
 * The durable record of a finished task, written to `<agent dir>/subagent-sessions/<id>/record.json` before
 * any delivery is attempted, so nothing is lost when delivery fails or pi restarts.
 */
export interface TaskRecord {
  version: 1;
  taskId: string;
  agent: string;
  task: string;
  mode: DispatchMode;
  status: RunStatus;
  exitCode: number | null;
  stopReason?: string;
  errorMessage?: string;
  cancelledBy?: CancelledBy;
  /** The main agent's reason (an agent cancel), or the command a person cancelled with (a user cancel). */
  cancelReason?: string;
  usage: UsageTotals;
  /** The model the child ran (as pi reported it, else the one it was started with). */
  model?: string;
  /** Where the model it was started with came from (`call`: the tool call's own `model`). */
  modelSource?: ValueSource;
  /** The thinking level it was started with, and where that came from; absent: pi's default. */
  thinking?: ThinkingLevel;
  thinkingSource?: ValueSource;
  /** Real run time (finishedAt - startedAt), or time since dispatch when the task never ran. */
  durationMs: number;
  dispatchedAt: number;
  startedAt?: number;
  finishedAt: number;
  /** The whole final output (what /subagent-result shows). */
  output: string;
  /** Set when the output was over the limit: where the whole output is saved (`<task folder>/output.md`). */
  fullOutputFile?: string;
  /** The limit the model-facing texts were cut to (with fullOutputFile, or with fullOutputError). */
  outputLimitChars?: number;
  /**
   * Set when the output was over the limit and output.md could not be written (a full or read-only disk):
   * why. The model-facing texts are still cut, and say that the rest is not in a file.
   */
  fullOutputError?: string;
  stderrTail?: string;
  sessionFile: string;
  cwd: string;
  /** The main agent's session that dispatched it (for delivery after a restart). */
  parentSessionId?: string;
  /** Its depth in the tree of subagents and what it started from (absent in records older than nesting). */
  origin?: TaskOrigin;
  /** Messages sent to the task while it was in flight, oldest first. */
  messages?: TaskMessage[];
  /** The budget limits the task ran with (absent: none). */
  budget?: BudgetLimits;
  /** Call values above the configured budget that were capped, one sentence each. */
  budgetNotes?: string[];
  /** Set when the provider's usage report of some turns was unusable: their tokens are estimated (see Budgets). */
  usageNote?: string;
  /** Lines of the child's stdout that were not pi events (dropped): how many, and the first few, cut short. */
  skippedOutput?: SkippedOutput;
  /** Tool calls of a stopped run (`bash: ls`), the last few, for its partial output. */
  partialTools?: string[];
  /** The `[subagent-result]` text, when the task was asynchronous. */
  envelope?: string;
  delivered: boolean;
  deliveredAt?: number;
  deliveryError?: string;
  /** isolation "worktree": what became of the task's worktree (kept with its branch, or removed). */
  worktree?: WorktreeReport;
  /** The batch or chain it was a part of (absent: a single call). */
  workflow?: WorkflowMembership;
  /** The child's questions nobody could answer, one line each (`asked "…": no one to answer (print mode)`). */
  unansweredQuestions?: string[];
  /** What the deliverable check found (`ok`, `restated`, `attached <file>`, `missing`); absent: not checked. */
  deliverable?: DeliverableNote;
  /** What `verify` found: its commands, passed or not, the rounds run; absent: no check configured. */
  verify?: VerifyReport;
}

/**
 * The durable delivery unit of a background batch or chain: its one combined envelope, written to
 * `<agent dir>/subagent-sessions/.workflows/<id>.json` once every part has ended and before it is sent, and
 * delivered (acknowledged, sent again, redelivered at a session's start) as one task's result is.
 */
export interface WorkflowRecord {
  version: 1;
  workflowId: string;
  kind: WorkflowMembership["kind"];
  parentSessionId?: string;
  /** The parts' task ids, in order (a chain step refused before it started has none). */
  partIds: string[];
  finishedAt: number;
  envelope: string;
  /** What the result card draws (never sent to the model). */
  details: WorkflowCardDetails;
  delivered: boolean;
  deliveredAt?: number;
  deliveryError?: string;
}

/** One part of a workflow as its result card lists it. */
export interface WorkflowCardPart {
  index: number;
  agent: string;
  status: RunStatus | "refused";
  taskId?: string;
  durationMs?: number;
  usage?: UsageTotals;
}

/**
 * The `details` of a workflow's `[subagent-result]` message: `taskId` is the workflow's id (delivery is
 * acknowledged by it), `agent` its title (`batch of 2: 2 succeeded`) and `status` succeeded only when every
 * part did.
 */
export interface WorkflowCardDetails {
  taskId: string;
  agent: string;
  task: string;
  status: RunStatus;
  durationMs: number;
  usage: UsageTotals;
  workflow: { kind: WorkflowMembership["kind"]; parts: WorkflowCardPart[] };
}

/*
 * How a record names the model and thinking level its child ran with, and where each came from:
 * `fake/fake-reasoner (call) · thinking: high (call)`. Pure.
 */
type ModelFields = Pick<TaskRecord, "model" | "modelSource" | "thinking" | "thinkingSource">;

function withSource(value: string, source: string | undefined): string {
  return source ? `${value} (${source})` : value;
}

/** The model with its source, then the thinking level with its source when one was set. */
export function modelProvenanceText(record: ModelFields): string | undefined {
  const parts: string[] = [];
  if (record.model) parts.push(withSource(record.model, record.modelSource));
  if (record.thinking) parts.push(`thinking: ${withSource(record.thinking, record.thinkingSource)}`);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** Whether the tool call itself chose the model or the thinking level (the envelope then says so). */
export function callChoseModel(record: ModelFields): boolean {
  return record.modelSource === "call" || record.thinkingSource === "call";
}

/*
 * How a record's output and messages read for people and the main agent (pure): a stopped run's output is its
 * partial output (last text and tools it ran, under one heading); messages sent to a task are listed one a line.
 */
/** A stopped run (cancel, timeout, shutdown) keeps its tool list; only then is its output partial. */
export function isPartialRecord(record: Pick<TaskRecord, "partialTools">): boolean {
  return record.partialTools !== undefined;
}

/** The record's output as it should be shown: a stopped run's under the partial-output heading. */
export function shownOutput(record: Pick<TaskRecord, "output" | "partialTools">): string {
  if (!isPartialRecord(record)) return record.output;
  return formatPartialOutput({ text: record.output, tools: record.partialTools ?? [] });
}

/** `12:03:04 from the main agent (while running): check b.ts too` (UTC time). */
function messageLine(message: TaskMessage): string {
  const time = new Date(message.at).toISOString().slice(11, 19);
  const from = message.from === "agent" ? "the main agent" : "the user";
  const when = message.delivery === "steer" ? "while running" : "while queued";
  return `${time} from ${from} (${when}): ${oneLine(message.text, 500)}`;
}

/** `Messages sent to it (2):` and one line each; empty when there were none. */
export function messageBlock(messages: readonly TaskMessage[] | undefined): string[] {
  if (!messages || messages.length === 0) return [];
  return [`Messages sent to it (${messages.length}):`, ...messages.map((message) => `- ${messageLine(message)}`)];
}

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
  if (outcome.deliverable) record.deliverable = outcome.deliverable;
  if (outcome.verify) record.verify = outcome.verify;
  if (context.worktree)
    record.worktree = context.worktree.finish({
      taskId: record.taskId,
      agent: record.agent,
      task: record.task,
      status: record.status,
    });
  if (outcome.status === "cancelled") {
    record.cancelledBy = context.cancelledBy ?? (outcome.stopReason === "killed_on_shutdown" ? "none" : "user");
    if (context.cancelReason) record.cancelReason = context.cancelReason;
  }
  return record;
}
