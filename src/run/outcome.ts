/**
 * How a run ended: its status, its outcome at exit, and what a stopped run leaves behind.
 */
import { BUDGET_STOP_REASONS, budgetHitText, type BudgetHit } from "../budget/limits.ts";
import { loopHitText, type LoopHit } from "./loop-guard.ts";
import type { RunState, RunStatus, StopCause, RunOutcome } from "./event-reducer.ts";
import type { RunHandle } from "./runner.ts";

/*
 * Classifies a finished child run into the spec's four statuses:
 * succeeded (exit 0 with a final answer) / failed / timed out (activity_timeout or hard_timeout) /
 * cancelled (aborted or killed_on_shutdown).
 */
/** Stop reasons of the child's last message that mean the answer is not a complete, usable result. */
const FAILING_STOP_REASONS = new Set(["error", "length", "deferred", "aborted"]);

/** The stop reason a record keeps for a run the loop guard stopped. */
const LOOP_STOP_REASON = "loop";
/** The stop reason of a child whose process a signal ended when nothing of ours stopped it (kill -9, the OOM killer). */
export const KILLED_STOP_REASON = "killed";
/** The stop reason of a child whose process exited with a non-zero code in the middle of its run. */
export const CRASHED_STOP_REASON = "crashed";

export interface ExitFacts {
  exitCode: number | null;
  signal: string | null;
  /** Set when we ended the run (timeout, cancel, shutdown). */
  cause?: StopCause;
  /** With cause `budget`: the budget that stopped the run. */
  budgetHit?: BudgetHit;
  /** With cause `loop`: the repeated call that stopped the run. */
  loopHit?: LoopHit;
  /** A spawn failure (the executable could not start). */
  spawnError?: string;
}

export interface Classification {
  status: RunStatus;
  stopReason?: string;
  errorMessage?: string;
}

/**
 * The child's error, unless it is only its answer to our own abort (`Request was aborted`, a turn that ended with
 * stop reason `aborted`): a stop we caused is not the child's error; the stop reason says what stopped it.
 */
function childErrorAfterOurStop(state: RunState): string | undefined {
  return state.stopReason === "aborted" ? undefined : state.errorMessage;
}

export function classifyRun(state: RunState, facts: ExitFacts): Classification {
  if (facts.cause === "activity_timeout" || facts.cause === "hard_timeout") {
    return { status: "timed out", stopReason: facts.cause, errorMessage: childErrorAfterOurStop(state) };
  }
  if (facts.cause === "aborted" || facts.cause === "killed_on_shutdown") {
    return { status: "cancelled", stopReason: facts.cause, errorMessage: childErrorAfterOurStop(state) };
  }
  if (facts.cause === "budget" && facts.budgetHit) {
    return {
      status: "stopped",
      stopReason: BUDGET_STOP_REASONS[facts.budgetHit.kind],
      errorMessage: budgetHitText(facts.budgetHit),
    };
  }
  if (facts.cause === "loop" && facts.loopHit) {
    return { status: "stopped", stopReason: LOOP_STOP_REASON, errorMessage: loopHitText(facts.loopHit) };
  }
  if (facts.spawnError) {
    return { status: "failed", stopReason: "error", errorMessage: facts.spawnError };
  }
  const stopReason = state.stopReason;
  if (facts.exitCode !== 0) {
    const how =
      facts.exitCode === null ? `was killed by ${facts.signal ?? "a signal"}` : `exited with code ${facts.exitCode}`;
    // The last message's stop reason (`toolUse`, `stop`) says nothing about a process that died under it.
    const failingStop = stopReason !== undefined && FAILING_STOP_REASONS.has(stopReason);
    const exitReason = facts.exitCode === null ? KILLED_STOP_REASON : CRASHED_STOP_REASON;
    return {
      status: "failed",
      stopReason: failingStop ? stopReason : exitReason,
      errorMessage: state.errorMessage ?? `the subagent process ${how}`,
    };
  }
  if (stopReason && FAILING_STOP_REASONS.has(stopReason)) {
    const fallback =
      stopReason === "length"
        ? "the answer was cut off at the model's output limit"
        : `the model stopped with reason "${stopReason}"`;
    return { status: "failed", stopReason, errorMessage: state.errorMessage ?? fallback };
  }
  if (state.errorMessage) {
    return { status: "failed", stopReason, errorMessage: state.errorMessage };
  }
  if (!state.finalText.trim()) {
    return { status: "failed", stopReason, errorMessage: "the subagent produced no final answer" };
  }
  return { status: "succeeded", stopReason };
}

/**
 * The outcome of a run that pi's own exit ends (a signal, or `process.exit`): cancelled by shutdown, with what
 * the run had produced so far. Built synchronously from the live state, since an exiting process cannot wait.
 */
export function outcomeAtExit(handle: RunHandle, at: number): RunOutcome {
  const { state } = handle;
  return {
    status: "cancelled",
    exitCode: null,
    signal: null,
    stopReason: "killed_on_shutdown",
    errorMessage: state.errorMessage,
    output: state.lastText,
    usage: { ...state.usage },
    model: state.provider && state.model ? `${state.provider}/${state.model}` : state.model,
    startedAt: handle.startedAt,
    finishedAt: at,
    durationMs: at - handle.startedAt,
    stderrTail: "",
    partial: { text: state.lastText, tools: toolLinesOf(state.activity) },
  };
}

/*
 * What a stopped run leaves behind for the main agent and the person: the last text the child wrote and the
 * tools it ran, under one heading (pure).
 */
export const PARTIAL_OUTPUT_HEADING = "Partial output before it was stopped:";
const NO_PARTIAL_TEXT = "(the subagent had not written any text yet)";
/** How many of the last tool calls are listed. */
export const MAX_PARTIAL_TOOLS = 20;

export interface PartialOutput {
  /** The last non-empty assistant text. */
  text: string;
  /** One line per tool call (`bash: ls -la`), oldest first, the last MAX_PARTIAL_TOOLS. */
  tools: string[];
}

function isEmptyPartial(partial: PartialOutput): boolean {
  return !partial.text.trim() && partial.tools.length === 0;
}

/** The block shown for a stopped run; empty when it produced nothing at all. */
export function formatPartialOutput(partial: PartialOutput): string {
  if (isEmptyPartial(partial)) return "";
  const lines = [PARTIAL_OUTPUT_HEADING, partial.text.trim() ? partial.text : NO_PARTIAL_TEXT];
  if (partial.tools.length > 0) {
    lines.push(
      "",
      `Tools it ran (${partial.tools.length === MAX_PARTIAL_TOOLS ? `last ${MAX_PARTIAL_TOOLS}` : partial.tools.length}):`,
    );
    for (const tool of partial.tools) lines.push(`- ${tool}`);
  }
  return lines.join("\n");
}

/** The tool lines of a run's activity list, the last MAX_PARTIAL_TOOLS. */
export function toolLinesOf(activity: ReadonlyArray<{ kind: string; text: string }>): string[] {
  return activity
    .filter((line) => line.kind === "tool")
    .map((line) => line.text)
    .slice(-MAX_PARTIAL_TOOLS);
}
