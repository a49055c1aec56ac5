import { describe, expect, it } from "vitest";
import { summarizeToolArgs } from "../../../src/run/event-reducer.ts";

describe("summarizeToolArgs", () => {
  it("uses the argument that says what a built-in tool does", () => {
    expect(summarizeToolArgs("bash", { timeout: 5, command: "npm test" })).toBe("npm test");
    expect(summarizeToolArgs("read", { offset: "10", path: "src/a.ts" })).toBe("src/a.ts");
    expect(summarizeToolArgs("edit", { file_path: "b.ts", oldText: "x" })).toBe("b.ts");
    expect(summarizeToolArgs("grep", { path: "src", pattern: "TODO" })).toBe("TODO");
    expect(summarizeToolArgs("subagent", { task: "long task", agent: "explore" })).toBe("explore");
  });

  it("falls back to the first string argument of other tools", () => {
    expect(summarizeToolArgs("my_tool", { count: 3, query: "weather in Paris" })).toBe("weather in Paris");
  });

  it("keeps it to one short line", () => {
    const summary = summarizeToolArgs("bash", { command: `for f in *; do\n  echo "$f"\ndone ${"x".repeat(100)}` });
    expect(summary).not.toContain("\n");
    expect(summary.length).toBeLessThanOrEqual(60);
    expect(summary.endsWith("…")).toBe(true);
  });

  it("is empty without usable arguments", () => {
    expect(summarizeToolArgs("bash", undefined)).toBe("");
    expect(summarizeToolArgs("bash", "ls")).toBe("");
    expect(summarizeToolArgs("ls", { path: "  ", depth: 2 })).toBe("");
  });
});
