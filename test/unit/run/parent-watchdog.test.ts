import { describe, expect, it } from "vitest";
import { PARENT_ENV, startParentWatchdog, WATCHDOG_INTERVAL_MS, type WatchdogDeps } from "../../../src/run/parent-watchdog.ts";
import type { ProcessIdentity } from "../../../src/run/proc-identity.ts";
import { TASK_MARKER_ENV } from "../../../src/run/task-marker.ts";

function fakeDeps(alive: () => boolean) {
  const calls = { ended: [] as Array<string | undefined>, checked: [] as ProcessIdentity[], unref: 0, cleared: 0, intervalMs: 0 };
  let tick: (() => void) | undefined;
  const deps: WatchdogDeps = {
    parentAlive: (parent) => {
      calls.checked.push(parent);
      return alive();
    },
    endTask: (taskId) => calls.ended.push(taskId),
    setInterval: (callback, ms) => {
      tick = callback;
      calls.intervalMs = ms;
      return { unref: () => void calls.unref++ };
    },
    clearInterval: () => void calls.cleared++,
  };
  return { deps, calls, tick: () => tick?.() };
}

describe("parent watchdog", () => {
  it("does nothing in a pi that no parent started", () => {
    const { deps, calls } = fakeDeps(() => true);
    expect(startParentWatchdog({}, deps)).toBeUndefined();
    expect(startParentWatchdog({ [PARENT_ENV]: "garbage" }, deps)).toBeUndefined();
    expect(calls.intervalMs).toBe(0);
  });

  it("checks the parent once a second on an unref'd timer, and ends the task once it is gone", () => {
    let parentAlive = true;
    const { deps, calls, tick } = fakeDeps(() => parentAlive);
    startParentWatchdog({ [PARENT_ENV]: "1234:99", [TASK_MARKER_ENV]: "task-1" }, deps);
    expect(calls.intervalMs).toBe(WATCHDOG_INTERVAL_MS);
    expect(WATCHDOG_INTERVAL_MS).toBeLessThanOrEqual(1000);
    expect(calls.unref).toBe(1);
    tick();
    expect(calls.checked).toEqual([{ pid: 1234, start: "99" }]);
    expect(calls.ended).toEqual([]);
    parentAlive = false;
    tick();
    expect(calls.ended).toEqual(["task-1"]);
    expect(calls.cleared).toBe(1);
  });
});
