/**
 * Delivery at a session's start waits for this process's start-up sweep (so what it records goes out in the same
 * pass), but never longer than SWEEP_WAIT_MAX_MS.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { afterStartupSweep, startupSweepState, SWEEP_WAIT_MAX_MS } from "../../../src/run/startup-work.ts";

const key = Symbol.for("pi-subagent-dispatch.startup-sweep");
const holder = globalThis as typeof globalThis & Record<symbol, unknown>;
let saved: unknown;
let had = false;

function freshState(): void {
  had = key in holder;
  saved = holder[key];
  delete holder[key];
}

afterEach(() => {
  vi.useRealTimers();
  if (had) holder[key] = saved;
  else delete holder[key];
});

describe("waiting for the start-up sweep", () => {
  it("settles once the sweep settles", async () => {
    freshState();
    let waited = false;
    const wait = afterStartupSweep().then(() => (waited = true));
    await Promise.resolve();
    expect(waited).toBe(false);
    startupSweepState().settle();
    await wait;
    expect(waited).toBe(true);
  });

  it("gives up after the bound when the sweep never settles", async () => {
    freshState();
    vi.useFakeTimers();
    let waited = false;
    const wait = afterStartupSweep().then(() => (waited = true));
    await vi.advanceTimersByTimeAsync(SWEEP_WAIT_MAX_MS - 1);
    expect(waited).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await wait;
    expect(waited).toBe(true);
  });
});
