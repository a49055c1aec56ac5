/**
 * How a run is driven and stopped (pure): the child's mode, the budget watch, and the one stop sequence.
 */
import { budgetReached, hasAnyLimit, type BudgetHit, type BudgetLimits } from "../budget/limits.ts";
import type { RunState } from "./event-reducer.ts";

/**
 * How a child pi is driven. `rpc` (the default) runs `pi --mode rpc`: the task goes in as an RPC `prompt` on
 * stdin (no command-line size limit), a running child can be steered and asked to abort. `json` is the older
 * sealed `pi --mode json -p <task>` child, kept as a fallback (`PI_SUBAGENT_CHILD_MODE=json`).
 */
export type ChildMode = "rpc" | "json";

export const CHILD_MODE_ENV = "PI_SUBAGENT_CHILD_MODE";

/** The child mode chosen by the environment; anything but `json` (any case) is the default, `rpc`. */
export function readChildMode(env: NodeJS.ProcessEnv = process.env): ChildMode {
  return (env[CHILD_MODE_ENV] ?? "").trim().toLowerCase() === "json" ? "json" : "rpc";
}

/*
 * The runner's per-line budget check, kept cheap: one integer comparison per line of the child's stream, and
 * the limits compared only once per finished turn. Only a turn that goes on (a tool call follows) can be
 * stopped: a final answer is complete and is kept as it is.
 */
export class BudgetWatch {
  private readonly limits: BudgetLimits;

  private checkedTurns = 0;

  constructor(limits: BudgetLimits) {
    this.limits = limits;
  }

  /** A watch for the limits, or undefined when there is nothing to watch. */
  static of(limits: BudgetLimits | undefined): BudgetWatch | undefined {
    return hasAnyLimit(limits) ? new BudgetWatch(limits) : undefined;
  }

  /** Call after each line was applied to `state`: the budget the run has just reached, if any. */
  afterLine(state: RunState): BudgetHit | undefined {
    if (state.usage.turns === this.checkedTurns) return undefined;
    this.checkedTurns = state.usage.turns;
    if (state.stopReason !== "toolUse") return undefined;
    const reached = budgetReached(this.limits, state.usage);
    // A cost budget that cannot be checked (a turn's cost is unknown) must not let a looping child run on.
    if (!reached && this.limits.maxCost !== undefined && state.unknownCostTurns > 0)
      return { kind: "cost", limit: this.limits.maxCost, unchecked: true };
    return reached;
  }
}

/*
 * The one way a run is stopped from outside, whatever the cause (cancel, cancel-all, a timeout, shutdown, and
 * later a budget): first ask the child to end its turn (RPC `abort`), wait a short grace for that turn to end so
 * what it produced so far is kept, then end the whole process tree (SIGTERM, SIGKILL after the kill grace).
 * A stop therefore never takes longer than the stop grace plus the kill grace, also when the child ignores the
 * request. The sequence owns only the timing; the runner provides the actions.
 */
const STOP_GRACE_ENV = "PI_SUBAGENT_STOP_GRACE_MS";
export const DEFAULT_STOP_GRACE_MS = 3000;
/** Above this, a stop grace would make cancel feel broken; larger values are capped. */
const MAX_STOP_GRACE_MS = 60_000;

/** The stop grace from the environment: a whole number of ms in [0, 60000]; anything else gives the default. */
export function readStopGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[STOP_GRACE_ENV]?.trim();
  if (!raw || !/^\d+$/.test(raw)) return DEFAULT_STOP_GRACE_MS;
  return Math.min(Number(raw), MAX_STOP_GRACE_MS);
}

export interface StopActions {
  /**
   * Asks the child to end its current turn; false when it cannot be asked (a
   * JSON child, or its input is closed).
   */
  requestAbort: () => boolean;
  /**
   * Ends the child's whole process tree (the caller escalates to SIGKILL after its
   * kill grace).
   */
  terminateTree: () => void;
  setTimer: (callback: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
}

/** `idle` → `asking` (abort sent, waiting for the turn to end) → `terminating` → `ended`. */
export type StopPhase = "idle" | "asking" | "terminating" | "ended";

export class StopSequence<Cause extends string> {
  private readonly actions: StopActions;
  private readonly graceMs: number;
  private phaseNow: StopPhase = "idle";
  private causeNow: Cause | undefined;
  private graceTimer: unknown;

  constructor(actions: StopActions, graceMs: number) {
    this.actions = actions;
    this.graceMs = graceMs;
  }

  get phase(): StopPhase {
    return this.phaseNow;
  }

  /** Why the run was stopped (the first cause wins). */
  get cause(): Cause | undefined {
    return this.causeNow;
  }

  /** Starts the stop; false (and nothing changes) when a stop already began or the child has ended. */
  begin(cause: Cause): boolean {
    if (this.phaseNow !== "idle") return false;
    this.causeNow = cause;
    if (this.graceMs > 0 && this.actions.requestAbort()) {
      this.phaseNow = "asking";
      this.graceTimer = this.actions.setTimer(() => {
        this.graceTimer = undefined;
        this.terminate();
      }, this.graceMs);
    } else {
      this.terminate();
    }
    return true;
  }

  /** The child's turn ended (after the abort): nothing more will come, end the tree now. */
  turnEnded(): void {
    if (this.phaseNow === "asking") this.terminate();
  }

  /** The child process is gone: no timer may fire any more. */
  childExited(): void {
    if (this.graceTimer !== undefined) this.actions.clearTimer(this.graceTimer);
    this.graceTimer = undefined;
    this.phaseNow = "ended";
  }

  private terminate(): void {
    if (this.phaseNow === "terminating" || this.phaseNow === "ended") return;
    if (this.graceTimer !== undefined) this.actions.clearTimer(this.graceTimer);
    this.graceTimer = undefined;
    this.phaseNow = "terminating";
    this.actions.terminateTree();
  }
}
