import { describe, expect, it } from "vitest";
import { statusText, styledStatus } from "../../../../src/pi/ui/progress.ts";
import { darkTheme, stripAnsi } from "./helpers.ts";

describe("statusText", () => {
  it("is absent while no task has existed in this pi", () => {
    expect(statusText({ running: 0, queued: 0, done: 0 })).toBeUndefined();
  });

  it("counts running and done tasks, and queued ones only when something waits", () => {
    expect(statusText({ running: 2, queued: 0, done: 3 })).toBe("⚙ 2 running · 3 done");
    expect(statusText({ running: 1, queued: 2, done: 0 })).toBe("⚙ 1 running · 2 queued · 0 done");
    expect(statusText({ running: 0, queued: 0, done: 4 })).toBe("⚙ 0 running · 4 done");
  });

  it("is coloured (accent while busy, dim once all ended) without changing the words", () => {
    const theme = darkTheme();
    const busy = styledStatus({ running: 1, queued: 0, done: 0 }, theme)!;
    const idle = styledStatus({ running: 0, queued: 0, done: 1 }, theme)!;
    expect(stripAnsi(busy)).toBe("⚙ 1 running · 0 done");
    expect(stripAnsi(idle)).toBe("⚙ 0 running · 1 done");
    expect(busy).toBe(theme.fg("accent", "⚙ 1 running · 0 done"));
    expect(idle).toBe(theme.fg("dim", "⚙ 0 running · 1 done"));
  });
});
