import { describe, expect, it } from "vitest";
import {
  ACTIVITY_TIMEOUT_ENV,
  HARD_TIMEOUT_ENV,
  KILL_GRACE_ENV,
  MAX_CONCURRENT_ENV,
  readRunSettings,
} from "../../../src/shared/run-settings.ts";

describe("readRunSettings", () => {
  it("uses the spec's variable names", () => {
    expect(ACTIVITY_TIMEOUT_ENV).toBe("PI_SUBAGENT_ACTIVITY_TIMEOUT_MS");
    expect(HARD_TIMEOUT_ENV).toBe("PI_SUBAGENT_HARD_TIMEOUT_MS");
  });

  it("defaults: 10 minutes of silence, no hard limit, 8 at once, 5 s grace", () => {
    expect(readRunSettings({})).toEqual({
      activityTimeoutMs: 600_000,
      hardTimeoutMs: 0,
      maxConcurrent: 8,
      killGraceMs: 5000,
    });
  });

  it("reads each variable", () => {
    expect(
      readRunSettings({
        [ACTIVITY_TIMEOUT_ENV]: "1500",
        [HARD_TIMEOUT_ENV]: " 90000 ",
        [MAX_CONCURRENT_ENV]: "2",
        [KILL_GRACE_ENV]: "250",
      }),
    ).toEqual({ activityTimeoutMs: 1500, hardTimeoutMs: 90_000, maxConcurrent: 2, killGraceMs: 250 });
  });

  it("keeps values <= 0 for the timeouts, which disables them", () => {
    const settings = readRunSettings({ [ACTIVITY_TIMEOUT_ENV]: "0", [HARD_TIMEOUT_ENV]: "-1" });
    expect(settings.activityTimeoutMs).toBeLessThanOrEqual(0);
    expect(settings.hardTimeoutMs).toBeLessThanOrEqual(0);
  });

  it("falls back to the default for values that are not numbers, and drops fractions", () => {
    const settings = readRunSettings({
      [ACTIVITY_TIMEOUT_ENV]: "ten minutes",
      [HARD_TIMEOUT_ENV]: "",
      [MAX_CONCURRENT_ENV]: "NaN",
      [KILL_GRACE_ENV]: "1200.9",
    });
    expect(settings).toEqual({ activityTimeoutMs: 600_000, hardTimeoutMs: 0, maxConcurrent: 8, killGraceMs: 1200 });
  });

  it("rejects a concurrency below 1 and a negative grace period", () => {
    expect(readRunSettings({ [MAX_CONCURRENT_ENV]: "0" }).maxConcurrent).toBe(8);
    expect(readRunSettings({ [KILL_GRACE_ENV]: "-5" }).killGraceMs).toBe(5000);
    expect(readRunSettings({ [KILL_GRACE_ENV]: "0" }).killGraceMs).toBe(0);
  });
});
