import type { SandboxLevel } from "../sandbox/levels.ts";
import type { BudgetLimits } from "../budget/limits.ts";
import type { UsageTotals } from "../shared/format.ts";
import type { RunStatus, SkippedOutput } from "../run/types.ts";
import type { WorktreeReport } from "../worktree/types.ts";
import type { ValueSource } from "../config/types.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";

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
