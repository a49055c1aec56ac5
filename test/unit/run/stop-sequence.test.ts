import { describe, expect, it } from "vitest";
import {
  DEFAULT_STOP_GRACE_MS,
  readStopGraceMs,
  StopSequence,
  type StopActions,
} from "../../../src/run/stop-sequence.ts";

/** Actions that record what happened, with timers the test fires by hand. */
function fakeActions(canAbort = true) {
  const log: string[] = [];
  const timers = new Map<number, { callback: () => void; ms: number }>();
  let next = 1;
  const actions: StopActions = {
    requestAbort: () => {
      log.push("abort");
      return canAbort;
    },
    terminateTree: () => log.push("terminate"),
    setTimer: (callback, ms) => {
      timers.set(next, { callback, ms });
      log.push(`timer ${ms}`);
      return next++;
    },
    clearTimer: (timer) => {
      timers.delete(timer as number);
      log.push("clear");
    },
  };
  const fireAll = () => {
    for (const [id, timer] of [...timers]) {
      timers.delete(id);
      timer.callback();
    }
  };
  return { actions, log, timers, fireAll };
}

describe("StopSequence", () => {
  it("asks first, then ends the tree when the grace runs out (a child that ignores the abort)", () => {
    const { actions, log, fireAll } = fakeActions();
    const stop = new StopSequence<string>(actions, 3000);
    expect(stop.begin("aborted")).toBe(true);
    expect(stop.phase).toBe("asking");
    expect(log).toEqual(["abort", "timer 3000"]);
    fireAll();
    expect(stop.phase).toBe("terminating");
    expect(log).toEqual(["abort", "timer 3000", "terminate"]);
  });

  it("ends the tree as soon as the aborted turn ended, without waiting out the grace", () => {
    const { actions, log, timers } = fakeActions();
    const stop = new StopSequence<string>(actions, 3000);
    stop.begin("activity_timeout");
    stop.turnEnded();
    expect(log).toEqual(["abort", "timer 3000", "clear", "terminate"]);
    expect(timers.size).toBe(0);
  });

  it("terminates at once when the child cannot be asked (JSON child, closed input) or the grace is 0", () => {
    const json = fakeActions(false);
    new StopSequence<string>(json.actions, 3000).begin("aborted");
    expect(json.log).toEqual(["abort", "terminate"]);
    const noGrace = fakeActions();
    new StopSequence<string>(noGrace.actions, 0).begin("aborted");
    expect(noGrace.log).toEqual(["terminate"]);
  });

  it("keeps the first cause; a second stop changes nothing", () => {
    const { actions, log } = fakeActions();
    const stop = new StopSequence<string>(actions, 3000);
    stop.begin("aborted");
    expect(stop.begin("hard_timeout")).toBe(false);
    expect(stop.cause).toBe("aborted");
    expect(log.filter((entry) => entry === "abort")).toHaveLength(1);
  });

  it("after the child exited nothing fires any more and a stop is refused", () => {
    const { actions, log, timers } = fakeActions();
    const stop = new StopSequence<string>(actions, 3000);
    stop.begin("aborted");
    stop.childExited();
    expect(timers.size).toBe(0);
    stop.turnEnded();
    expect(log).not.toContain("terminate");
    const late = new StopSequence<string>(fakeActions().actions, 3000);
    late.childExited();
    expect(late.begin("aborted")).toBe(false);
  });
});

describe("readStopGraceMs", () => {
  it("reads whole milliseconds, caps at 60 s, and falls back to the default on anything else", () => {
    expect(readStopGraceMs({})).toBe(DEFAULT_STOP_GRACE_MS);
    expect(readStopGraceMs({ PI_SUBAGENT_STOP_GRACE_MS: "500" })).toBe(500);
    expect(readStopGraceMs({ PI_SUBAGENT_STOP_GRACE_MS: "0" })).toBe(0);
    expect(readStopGraceMs({ PI_SUBAGENT_STOP_GRACE_MS: "999999999999" })).toBe(60_000);
    expect(readStopGraceMs({ PI_SUBAGENT_STOP_GRACE_MS: "-5" })).toBe(DEFAULT_STOP_GRACE_MS);
    expect(readStopGraceMs({ PI_SUBAGENT_STOP_GRACE_MS: "2.5s" })).toBe(DEFAULT_STOP_GRACE_MS);
  });
});
