// @ts-check
/**
 * The fan-out gate at work: counts the tasks each run of the main agent dispatches (reset when a run starts)
 * and the blocking calls in flight, and decides each dispatch. Past a cap, the TUI asks the person once per run
 * (`ctx.ui.confirm`); a yes lifts the caps until the run ends, a no (or no UI) refuses the call with a message
 * that names the cap and what is in flight.
 */
/** @import { ExtensionContext } from "@mariozechner/pi-coding-agent" */
import { FAN_OUT_CONFIRM_TITLE, fanOutHit, fanOutQuestion, fanOutRefusal } from "./gate.js";
/** @import { InFlightTaskLine } from "./gate.js" */
/** @import { FanOutLimits } from "./limits.js" */

/**
 * @typedef {object} FanOutGateDeps
 * @property {() => InFlightTaskLine[]} inFlight Background tasks running or queued now.
 */

export class FanOutGate {
  /**
   * @private
   * @readonly
   * @type {FanOutGateDeps}
   */
  deps;
  /** @private */
  dispatchedThisRun = 0;
  /** @private */
  blocking = 0;
  /**
   * The person's answer this run: asked at most once.
   * @private
   * @type {"allowed" | "declined" | undefined}
   */
  decision;

  /** @param {FanOutGateDeps} deps */
  constructor(deps) {
    this.deps = deps;
  }

  /**
   * A new run of the main agent: its own count and its own question.
   * @returns {void}
   */
  runStarted() {
    this.dispatchedThisRun = 0;
    this.decision = undefined;
  }

  /**
   * Admits one dispatch (counted at once, so parallel calls of one batch are counted one by one), or returns the
   * refusal message.
   * @param {FanOutLimits} limits
   * @param {Pick<ExtensionContext, "hasUI" | "ui">} ctx
   * @param {boolean} askPerson
   * @returns {Promise<string | undefined>}
   */
  async admit(limits, ctx, askPerson) {
    const inFlight = this.deps.inFlight();
    const hit = this.decision === "allowed" ? undefined : fanOutHit(limits, this.dispatchedThisRun, inFlight.length + this.blocking);
    if (!hit) {
      this.dispatchedThisRun += 1;
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
        this.dispatchedThisRun += 1;
        return undefined;
      }
    }
    return fanOutRefusal(hit, inFlight, this.blocking);
  }

  /**
   * Wraps a blocking run so it counts as in flight while it runs.
   * @template T
   * @param {() => Promise<T>} run
   * @returns {Promise<T>}
   */
  async blockingRun(run) {
    this.blocking += 1;
    try {
      return await run();
    } finally {
      this.blocking -= 1;
    }
  }
}
