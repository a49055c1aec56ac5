import { describe, expect, it } from "vitest";
import { withoutDuplicateResults } from "../../../src/delivery/delivery-tracker.ts";

const result = (taskId: string, extra: Record<string, unknown> = {}) => ({
  role: "custom",
  customType: "subagent-result",
  content: `R-${taskId}`,
  details: { taskId, ...extra },
});

describe("each result reaches the model once", () => {
  it("leaves out a second copy of a result and copies marked duplicate", () => {
    const user = { role: "user", content: "hi" };
    const other = { role: "custom", customType: "something-else", details: { taskId: "a" } };
    const messages = [user, result("a"), other, result("b"), result("a"), result("c", { duplicate: true })];
    expect(withoutDuplicateResults(messages)).toEqual([user, result("a"), other, result("b")]);
  });

  it("keeps a resumed task's new result: the same taskId with another envelope is not a copy", () => {
    const first = { ...result("a"), content: "## [subagent-result] worker succeeded (taskId: a)\nFIRST" };
    const resumed = { ...result("a"), content: "## [subagent-result] worker succeeded (taskId: a)\nSECOND" };
    expect(withoutDuplicateResults([first, resumed])).toBeUndefined();
    expect(withoutDuplicateResults([first, resumed, { ...resumed }])).toEqual([first, resumed]);
  });

  it("keeps both runs of a resumed task even when their envelopes read the same, and leaves out a run's copy", () => {
    const first = result("a", { dispatchedAt: 100 });
    const resumed = result("a", { dispatchedAt: 200 });
    // The same text (the same task, the same answer): still two deliveries, told apart by their run.
    expect(first.content).toBe(resumed.content);
    expect(withoutDuplicateResults([first, resumed])).toBeUndefined();
    expect(withoutDuplicateResults([first, resumed, result("a", { dispatchedAt: 200 })])).toEqual([first, resumed]);
  });

  it("returns undefined when nothing is left out", () => {
    expect(withoutDuplicateResults([{ role: "user" }, result("a"), result("b")])).toBeUndefined();
  });
});
