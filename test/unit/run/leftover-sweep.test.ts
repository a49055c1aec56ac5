/**
 * The sweep after a child's exit, against a fake process table: SIGTERM first, SIGKILL only for what outlives
 * the grace period, never a pid whose start time changed (a recycled pid), never the excepted pid.
 */
import { describe, expect, it } from "vitest";
import { endLeftovers, type SweepDeps } from "../../../src/run/processes.ts";

interface FakeProcess {
  start: string;
  alive: boolean;
  ignoresTerm?: boolean;
}

function fakeTable(processes: Record<number, FakeProcess>) {
  const signals: string[] = [];
  let clock = 0;
  const deps: SweepDeps = {
    findMarked: () =>
      Object.keys(processes)
        .map(Number)
        .filter((pid) => processes[pid]!.alive),
    startTime: (pid) => (processes[pid]?.alive ? processes[pid]!.start : undefined),
    isAlive: (identity) => processes[identity.pid]?.alive === true && processes[identity.pid]!.start === identity.start,
    signal: (target, signal) => {
      signals.push(`${signal} ${target}`);
      const p = processes[Math.abs(target)];
      if (p && (signal === "SIGKILL" || !p.ignoresTerm)) p.alive = false;
    },
    wait: async (ms) => {
      clock += ms;
    },
    now: () => clock,
  };
  return { deps, signals, elapsed: () => clock };
}

describe("endLeftovers", () => {
  it("does nothing without a marker or without marked processes", async () => {
    const { deps, signals } = fakeTable({});
    expect(await endLeftovers(undefined, 1000, [], deps)).toEqual([]);
    expect(await endLeftovers("task", 1000, [], deps)).toEqual([]);
    expect(signals).toEqual([]);
  });

  it("ends with SIGTERM what obeys it, without waiting out the grace period", async () => {
    const { deps, signals, elapsed } = fakeTable({ 10: { start: "1", alive: true }, 11: { start: "2", alive: true } });
    expect(await endLeftovers("task", 5000, [], deps)).toEqual([10, 11]);
    expect(signals.every((s) => s.startsWith("SIGTERM"))).toBe(true);
    expect(elapsed()).toBe(0);
  });

  it("SIGKILLs what ignores SIGTERM after the grace period, and spares the excepted pid", async () => {
    const table = { 10: { start: "1", alive: true, ignoresTerm: true }, 99: { start: "9", alive: true } };
    const { deps, signals, elapsed } = fakeTable(table);
    await endLeftovers("task", 300, [99], deps);
    expect(table[10].alive).toBe(false);
    expect(table[99].alive).toBe(true);
    expect(signals).toContain("SIGKILL 10");
    expect(signals.some((s) => s.endsWith(" 99") || s.endsWith(" -99"))).toBe(false);
    expect(elapsed()).toBeGreaterThanOrEqual(300);
  });
});
