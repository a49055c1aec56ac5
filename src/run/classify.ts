/**
 * Classifies a finished child run into the spec's four statuses:
 * succeeded (exit 0 with a final answer) / failed / timed out (activity_timeout or hard_timeout) /
 * cancelled (aborted or killed_on_shutdown).
 */
import { BUDGET_STOP_REASONS, budgetHitText } from "../budget/limits.ts";
import type { BudgetHit } from "../budget/limits.ts";
import type { RunState, RunStatus, StopCause } from "./types.ts";

/** Stop reasons of the child's last message that mean the answer is not a complete, usable result. */
const FAILING_STOP_REASONS = new Set(["error", "length", "deferred", "aborted"]);

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
    return { status: "stopped", stopReason: BUDGET_STOP_REASONS[facts.budgetHit.kind], errorMessage: budgetHitText(facts.budgetHit) };
  }
  if (facts.spawnError) {
    return { status: "failed", stopReason: "error", errorMessage: facts.spawnError };
  }
  const stopReason = state.stopReason;
  if (facts.exitCode !== 0) {
    const how = facts.exitCode === null ? `was killed by ${facts.signal ?? "a signal"}` : `exited with code ${facts.exitCode}`;
    // The last message's stop reason (`toolUse`, `stop`) says nothing about a process that died under it.
    const failingStop = stopReason !== undefined && FAILING_STOP_REASONS.has(stopReason);
    const exitReason = facts.exitCode === null ? KILLED_STOP_REASON : CRASHED_STOP_REASON;
    return { status: "failed", stopReason: failingStop ? stopReason : exitReason, errorMessage: state.errorMessage ?? `the subagent process ${how}` };
  }
  if (stopReason && FAILING_STOP_REASONS.has(stopReason)) {
    const fallback = stopReason === "length" ? "the answer was cut off at the model's output limit" : `the model stopped with reason "${stopReason}"`;
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
