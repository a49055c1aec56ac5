import { describe, expect, it } from "vitest";
import { withoutDuplicateResults } from "../../../../src/core/delivery/result-context.ts";

const result = (taskId: string, extra: Record<string, unknown> = {}) => ({ role: "custom", customType: "subagent-result", content: `R-${taskId}`, details: { taskId, ...extra } });

describe("each result reaches the model once", () => {
  it("leaves out a second copy of a result and copies marked duplicate", () => {
    const user = { role: "user", content: "hi" };
    const other = { role: "custom", customType: "something-else", details: { taskId: "a" } };
    const messages = [user, result("a"), other, result("b"), result("a"), result("c", { duplicate: true })];
    expect(withoutDuplicateResults(messages)).toEqual([user, result("a"), other, result("b")]);
  });

  it("returns undefined when nothing is left out", () => {
    expect(withoutDuplicateResults([{ role: "user" }, result("a"), result("b")])).toBeUndefined();
  });
});
