import type { SandboxLevel } from "../sandbox/levels.ts";
import type { BudgetLimits } from "../budget/limits.ts";
import type { UsageTotals } from "../shared/format.ts";
import type { RunStatus } from "../run/types.ts";
import type { WorktreeReport } from "../worktree/types.ts";

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
  cancelReason?: string;
  usage: UsageTotals;
  model?: string;
  /** Real run time (finishedAt - startedAt), or time since dispatch when the task never ran. */
  durationMs: number;
  dispatchedAt: number;
  startedAt?: number;
  finishedAt: number;
  /** The whole final output (what /subagent-result shows). */
  output: string;
  /** Set when the output was over the limit: where the whole output is saved (`<task folder>/output.md`). */
  fullOutputFile?: string;
  /** The limit the model-facing texts were cut to (with fullOutputFile). */
  outputLimitChars?: number;
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
  /** Tool calls of a stopped run (`bash: ls`), the last few, for its partial output. */
  partialTools?: string[];
  /** The `[subagent-result]` text, when the task was asynchronous. */
  envelope?: string;
  delivered: boolean;
  deliveredAt?: number;
  deliveryError?: string;
  /** isolation "worktree": what became of the task's worktree (kept with its branch, or removed). */
  worktree?: WorktreeReport;
}
