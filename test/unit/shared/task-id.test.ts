import { describe, expect, it } from "vitest";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import { isTaskId } from "../../../src/shared/nesting.ts";

describe("task ids", () => {
  it("are lowercase UUID v7s that sort by creation time", () => {
    const ids = Array.from({ length: 50 }, () => newTaskId());
    for (const id of ids) {
      expect(isTaskId(id)).toBe(true);
      expect(id).toBe(id.toLowerCase());
      expect(id[14]).toBe("7");
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("accepts only the canonical form", () => {
    expect(isTaskId("01912345-6789-7abc-8def-0123456789ab")).toBe(true);
    expect(isTaskId("01912345-6789-7ABC-8DEF-0123456789AB")).toBe(false);
    expect(isTaskId("0f8fad5b-d9cb-469f-a165-70867728950e")).toBe(false);
    expect(isTaskId("01912345-6789-7abc-cdef-0123456789ab")).toBe(false);
    expect(isTaskId("019123456789-7abc-8def-0123456789ab")).toBe(false);
    expect(isTaskId(" 01912345-6789-7abc-8def-0123456789ab")).toBe(false);
    expect(isTaskId("coder-1")).toBe(false);
    expect(isTaskId("")).toBe(false);
  });
});
