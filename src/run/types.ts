import type { BudgetHit } from "../budget/limits.ts";
import type { PartialOutput } from "./partial-output.ts";
import type { UsageTotals } from "../shared/format.ts";

/** What the child is doing right now, as shown in the widget and progress updates. */
export type RunPhase = "starting" | "thinking" | "writing" | "tool" | "waiting" | "retrying" | "done";

export interface ToolActivity {
  name: string;
  /** A short, one-line summary of the arguments (a command, a path, a pattern). */
  summary: string;
  at: number;
}

/** One line of what the child did, for the live watch view (bounded list). */
export interface ActivityLine {
  at: number;
  kind: "text" | "tool" | "tool-result" | "error" | "retry" | "message";
  text: string;
}

/** The live state of one child run, built from its JSON event stream. Bounded whatever the child prints. */
export interface RunState {
  phase: RunPhase;
  /** The tool running now, if any. */
  currentTool?: ToolActivity;
  /** The last tool started (kept after it ends). */
  lastTool?: ToolActivity;
  toolCalls: number;
  usage: UsageTotals;
  provider?: string;
  model?: string;
  /** Stop reason of the last assistant message (`stop`, `toolUse`, `length`, `error`, `aborted`, ...). */
  stopReason?: string;
  /** Error message of the last assistant message, or of a retry that gave up. */
  errorMessage?: string;
  /** Text of the last assistant message: the run's final output once the child exits. */
  finalText: string;
  /** The last non-empty assistant text (kept when a later, aborted message has none): a stopped run's partial text. */
  lastText: string;
  /** The last few KB of streamed assistant text (for the watch view), bounded. */
  streamTail: string;
  /** Recent activity lines (bounded). */
  activity: ActivityLine[];
  /**
   * True while pi waits out a retry delay: from `auto_retry_start` (or `agent_end` with `willRetry`) until the
   * retried request starts (`agent_start`/`turn_start`) or `auto_retry_end`.
   */
  retryPending: boolean;
  /**
   * When the child's last model call failed (an assistant `message_end` with stop reason `error`), until pi says
   * what follows (`auto_retry_start`, `agent_end` with `willRetry: false`, a new request): pi may still be about to
   * retry, so that moment is not the start of idleness.
   */
  failedCallAt?: number;
  retryAttempts: number;
  /** Session id from the stream's header line. */
  sessionId?: string;
  /** When the child last produced an event (ms since epoch). */
  lastEventAt: number;
  events: number;
  /** Lines that were not valid JSON events (skipped). */
  skippedLines: number;
  /** The first few skipped lines, each cut to SKIPPED_SAMPLE_CHARS (for the record). */
  skippedSample: string[];
  /** Characters of the messages seen so far (task, answers, tool results): the base of a usage estimate. */
  contextChars: number;
  /** Turns whose usage report was unusable, so their tokens are estimated. */
  estimatedTurns: number;
  /** Turns whose cost is unknown (an unusable report, or a cost that is negative or not a number). */
  unknownCostTurns: number;
}

/** The four outcomes the spec names, and `stopped`: a budget (maxTurns, maxTokens, maxCost) ended the run. */
export type RunStatus = "succeeded" | "failed" | "timed out" | "cancelled" | "stopped";

export type { StopCause } from "../shared/run-settings.ts";

export interface RunOutcome {
  status: RunStatus;
  exitCode: number | null;
  signal: string | null;
  /** The child's stop reason, or ours: `activity_timeout`, `hard_timeout`, `aborted`, `killed_on_shutdown`. */
  stopReason?: string;
  errorMessage?: string;
  /** The final output: the last assistant message's text. */
  output: string;
  usage: UsageTotals;
  model?: string;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  /** The last few KB of the child's stderr. */
  stderrTail: string;
  /** Set when a budget stopped the run: which one and its limit. */
  budgetHit?: BudgetHit;
  /** Set when the run was stopped from outside: what it had produced by then. */
  partial?: PartialOutput;
  /** One line per question of the child that nobody could answer (`asked "…": no one to answer (print mode)`). */
  unanswered?: string[];
  /** Set when some turns' usage was unusable: which were estimated, whose cost is unknown. */
  usageNote?: string;
  /** Set when the child's stdout carried lines that were not pi events: how many, and the first few (cut short). */
  skippedOutput?: SkippedOutput;
}

export interface SkippedOutput {
  lines: number;
  sample: string[];
}
