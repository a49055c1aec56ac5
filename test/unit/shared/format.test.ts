import { describe, expect, it } from "vitest";
import {
  emptyUsage,
  formatDuration,
  formatElapsed,
  formatTokens,
  formatUsage,
  oneLine,
  type UsageTotals,
} from "../../../src/shared/text.ts";

function usage(partial: Partial<UsageTotals>): UsageTotals {
  return { ...emptyUsage(), ...partial };
}

describe("formatUsage", () => {
  it("reproduces the spec's example", () => {
    expect(formatUsage(usage({ turns: 5, input: 12_500, output: 3_200, cost: 0.0042 }))).toBe(
      "5 turns/↑12.5k/↓3.2k/$0.0042",
    );
  });

  it("says `1 turn` in the singular and `0 turns` for nothing at all", () => {
    expect(formatUsage(usage({ turns: 1, input: 120, output: 40, cost: 0.00028 }))).toBe("1 turn/↑120/↓40/$0.0003");
    expect(formatUsage(emptyUsage())).toBe("0 turns/↑0/↓0/$0.0000");
  });

  it("leaves cache tokens and context out of the short form", () => {
    expect(
      formatUsage(
        usage({ turns: 2, input: 1000, output: 1000, cacheRead: 50_000, cacheWrite: 9000, contextTokens: 70_000 }),
      ),
    ).toBe("2 turns/↑1k/↓1k/$0.0000");
  });
});

describe("formatTokens", () => {
  it("keeps small counts whole and shortens thousands and millions to one decimal", () => {
    expect(formatTokens(0)).toBe("0");
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(999)).toBe("999");
    expect(formatTokens(1000)).toBe("1k");
    expect(formatTokens(12_500)).toBe("12.5k");
    expect(formatTokens(3_249)).toBe("3.2k");
    expect(formatTokens(3_200_000)).toBe("3.2M");
    expect(formatTokens(2_000_000)).toBe("2M");
  });

  it("switches unit where rounding would print 1000k", () => {
    expect(formatTokens(999.5)).toBe("1k");
    expect(formatTokens(999_949)).toBe("999.9k");
    expect(formatTokens(999_950)).toBe("1M");
  });
});

describe("formatDuration (final run time)", () => {
  it("is MM:SS below one hour", () => {
    expect(formatDuration(0)).toBe("00:00");
    expect(formatDuration(999)).toBe("00:00");
    expect(formatDuration(154_000)).toBe("02:34");
    expect(formatDuration(3_599_999)).toBe("59:59");
  });

  it("is H:MM:SS from one hour on, hours not zero-padded", () => {
    expect(formatDuration(3_600_000)).toBe("1:00:00");
    expect(formatDuration(3_600_000 + 5 * 60_000 + 7_000)).toBe("1:05:07");
    expect(formatDuration(12 * 3_600_000 + 34 * 60_000 + 56_000)).toBe("12:34:56");
  });

  it("never shows a negative time", () => {
    expect(formatDuration(-5000)).toBe("00:00");
  });
});

describe("formatElapsed (the live clock)", () => {
  it("is MM:SS and lets minutes grow past 99 instead of switching to hours", () => {
    expect(formatElapsed(61_000)).toBe("01:01");
    expect(formatElapsed(3_600_000)).toBe("60:00");
    expect(formatElapsed(99 * 60_000 + 59_000)).toBe("99:59");
    expect(formatElapsed(100 * 60_000)).toBe("100:00");
    expect(formatElapsed(-1)).toBe("00:00");
  });
});

describe("oneLine", () => {
  it("flattens whitespace and cuts with an ellipsis at the limit", () => {
    expect(oneLine("  a\n\tb   c  ", 20)).toBe("a b c");
    expect(oneLine("abcdefghij", 10)).toBe("abcdefghij");
    expect(oneLine("abcdefghijk", 10)).toBe("abcdefghi…");
    expect(oneLine("abcdefghijk", 10)).toHaveLength(10);
  });
});
