/**
 * The fan-out gate at work: counts the tasks each run of the main agent dispatches (reset when a run starts)
 * and the blocking calls in flight, and decides each dispatch. Past a cap, the TUI asks the person once per run
 * (`ctx.ui.confirm`); a yes lifts the caps until the run ends, a no (or no UI) refuses the call with a message
 * that names the cap and what is in flight.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { FAN_OUT_CONFIRM_TITLE, fanOutHit, fanOutQuestion, fanOutRefusal } from "./fan-out-decision.ts";
import type { InFlightTaskLine } from "./fan-out-decision.ts";
import type { FanOutLimits } from "./fan-out-limits.ts";

export interface FanOutGateDeps {
  /** Background tasks running or queued now. */
  inFlight: () => InFlightTaskLine[];
}

export class FanOutGate {
  private readonly deps: FanOutGateDeps;
  private dispatchedThisRun = 0;
  private blocking = 0;
  /** The person's answer this run: asked at most once. */
  private decision: "allowed" | "declined" | undefined;

  constructor(deps: FanOutGateDeps) {
    this.deps = deps;
  }

  /** A new run of the main agent: its own count and its own question. */
  runStarted(): void {
    this.dispatchedThisRun = 0;
    this.decision = undefined;
  }

  /**
   * Admits `count` dispatches at once (a batch's parts together, so calls sent side by side cannot each take a few
   * places and all fail), or returns the refusal message. They are counted before any await, so parallel calls are
   * counted one after another.
   */
  async admit(limits: FanOutLimits, ctx: Pick<ExtensionContext, "hasUI" | "ui">, askPerson: boolean, count = 1): Promise<string | undefined> {
    const inFlight = this.deps.inFlight();
    const hit = this.decision === "allowed" ? undefined : fanOutHit(limits, this.dispatchedThisRun, inFlight.length + this.blocking, count);
    if (!hit) {
      this.dispatchedThisRun += count;
      return undefined;
    }
    if (askPerson && ctx.hasUI && this.decision === undefined) {
      this.decision = "declined";
      let allowed = false;
      try {
        allowed = await ctx.ui.confirm(FAN_OUT_CONFIRM_TITLE, fanOutQuestion(hit));
      } catch {
        allowed = false;
      }
      if (allowed) {
        this.decision = "allowed";
        this.dispatchedThisRun += count;
        return undefined;
      }
    }
    return fanOutRefusal(hit, inFlight, this.blocking);
  }

  /**
   * Gives back admitted dispatches that never started (a batch or chain whose later part was refused starts
   * none): they no longer count toward this run's cap, so a refused batch does not starve the next.
   */
  withdraw(count = 1): void {
    this.dispatchedThisRun = Math.max(0, this.dispatchedThisRun - count);
  }

  /** Counts a blocking run as in flight until the returned function is called (once; later calls do nothing). */
  beginBlockingRun(): () => void {
    this.blocking += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.blocking -= 1;
    };
  }
}
