import { describe, expect, it } from "vitest";
import { PARENT_ENV } from "../../../src/shared/nesting.ts";
import {
  endTaskWhenInputEnds,
  isRpcMode,
  startParentWatchdog,
  WATCHDOG_INTERVAL_MS,
  TASK_MARKER_ENV,
  type WatchdogDeps,
} from "../../../src/run/parent-watchdog.ts";
import type { ProcessIdentity } from "../../../src/shared/proc-identity.ts";

function fakeDeps(alive: () => boolean) {
  const calls = {
    ended: [] as Array<string | undefined>,
    checked: [] as ProcessIdentity[],
    unref: 0,
    cleared: 0,
    intervalMs: 0,
  };
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

describe("stdin watch of an RPC child", () => {
  function input() {
    let listener: (() => void) | undefined;
    return { once: (_event: "end", l: () => void) => void (listener = l), end: () => listener?.() };
  }

  it("ends the task's processes when stdin ends and the parent no longer runs", () => {
    const stdin = input();
    const ended: Array<string | undefined> = [];
    const watching = endTaskWhenInputEnds(
      stdin,
      { [PARENT_ENV]: "1234:99", [TASK_MARKER_ENV]: "task-1" },
      { parentRunning: () => false, endTask: (id) => ended.push(id) },
    );
    expect(watching).toBe(true);
    stdin.end();
    expect(ended).toEqual(["task-1"]);
  });

  it("leaves everything alone when the parent closed stdin on purpose (it still runs)", () => {
    const stdin = input();
    const ended: Array<string | undefined> = [];
    endTaskWhenInputEnds(
      stdin,
      { [PARENT_ENV]: "1234:99", [TASK_MARKER_ENV]: "task-1" },
      { parentRunning: () => true, endTask: (id) => ended.push(id) },
    );
    stdin.end();
    expect(ended).toEqual([]);
  });

  it("does not watch without a parent, and knows RPC mode from pi's arguments", () => {
    expect(endTaskWhenInputEnds(input(), {}, { parentRunning: () => false, endTask: () => {} })).toBe(false);
    expect(isRpcMode(["/pi/cli.js", "--mode", "rpc", "--session", "s"])).toBe(true);
    expect(isRpcMode(["/pi/cli.js", "--mode=rpc"])).toBe(true);
    expect(isRpcMode(["/pi/cli.js", "--mode", "json", "-p", "rpc"])).toBe(false);
  });
});
