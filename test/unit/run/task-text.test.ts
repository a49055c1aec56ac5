import { describe, expect, it } from "vitest";
import { readChildMode } from "../../../src/run/stop-sequence.ts";
import { childTextProblem, promptProblem } from "../../../src/run/rpc.ts";

describe("childTextProblem / promptProblem", () => {
  it("refuses a NUL in a task or a message, naming which", () => {
    expect(childTextProblem("a\0b", "task")).toMatch(/^The task contains a NUL character/);
    expect(childTextProblem("a\0b", "message")).toMatch(/^The message contains a NUL character/);
    expect(childTextProblem("fine\ttext\n", "task")).toBeUndefined();
  });

  it("limits the prompt's bytes only for the JSON child", () => {
    const big = "é".repeat(70 * 1024); // 140 KiB in UTF-8
    expect(promptProblem(big, "rpc")).toBeUndefined();
    expect(promptProblem(big, "json")).toMatch(/^The task is 143360 bytes long/);
    expect(promptProblem("x".repeat(131_071), "json")).toBeUndefined();
    expect(promptProblem("x".repeat(131_072), "json")).toBeDefined();
  });
});

describe("readChildMode", () => {
  it("is rpc unless PI_SUBAGENT_CHILD_MODE says json", () => {
    expect(readChildMode({})).toBe("rpc");
    expect(readChildMode({ PI_SUBAGENT_CHILD_MODE: "json" })).toBe("json");
    expect(readChildMode({ PI_SUBAGENT_CHILD_MODE: " JSON " })).toBe("json");
    expect(readChildMode({ PI_SUBAGENT_CHILD_MODE: "rpc" })).toBe("rpc");
    expect(readChildMode({ PI_SUBAGENT_CHILD_MODE: "jsonl" })).toBe("rpc");
  });
});
