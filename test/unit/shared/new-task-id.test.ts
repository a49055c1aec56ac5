import { describe, expect, it } from "vitest";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import { isTaskId } from "../../../src/shared/nesting.ts";

const timeOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

describe("newTaskId", () => {
  it("makes a task id: lowercase, version 7, RFC variant, the current time in its first 48 bits", () => {
    const before = Date.now();
    const id = newTaskId();
    expect(isTaskId(id)).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOf(id)).toBeGreaterThanOrEqual(before);
    expect(timeOf(id)).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("keeps ids made in a row in the order they were made, many in one millisecond included", () => {
    const ids = Array.from({ length: 6000 }, () => newTaskId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
