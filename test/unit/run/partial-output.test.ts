import { describe, expect, it } from "vitest";
import { formatPartialOutput, MAX_PARTIAL_TOOLS, toolLinesOf } from "../../../src/run/outcome.ts";

describe("formatPartialOutput", () => {
  it("puts the last text and the tools it ran under one heading", () => {
    expect(
      formatPartialOutput({ text: "Found 3 call sites so far.", tools: ["read: src/a.ts", "bash: sleep 30"] }),
    ).toBe(
      [
        "Partial output before it was stopped:",
        "Found 3 call sites so far.",
        "",
        "Tools it ran (2):",
        "- read: src/a.ts",
        "- bash: sleep 30",
      ].join("\n"),
    );
  });

  it("says so when there was no text yet, and is empty when there was nothing at all", () => {
    expect(formatPartialOutput({ text: " ", tools: ["bash: ls"] })).toBe(
      "Partial output before it was stopped:\n(the subagent had not written any text yet)\n\nTools it ran (1):\n- bash: ls",
    );
    expect(formatPartialOutput({ text: "", tools: [] })).toBe("");
  });

  it("lists only the last tool calls of a long run, and says so", () => {
    const activity = Array.from({ length: 30 }, (_, i) => ({ kind: i % 2 ? "tool" : "text", text: `line ${i}` }));
    const tools = toolLinesOf(activity);
    expect(tools).toHaveLength(15);
    const many = Array.from({ length: 40 }, (_, i) => ({ kind: "tool", text: `bash: step ${i}` }));
    const last = toolLinesOf(many);
    expect(last).toHaveLength(MAX_PARTIAL_TOOLS);
    expect(last[0]).toBe("bash: step 20");
    expect(formatPartialOutput({ text: "x", tools: last })).toContain(`Tools it ran (last ${MAX_PARTIAL_TOOLS}):`);
  });
});
