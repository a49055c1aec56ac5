import { describe, expect, it } from "vitest";
import { isTaskId } from "../../../src/tasks/task-id.js";
import { createUuidV7Generator, uuidV7 as processUuidV7 } from "../../../src/tasks/uuid-v7.js";

const timeOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

describe("uuidV7", () => {
  it("makes a task id: lowercase, version 7, RFC variant, the time in its first 48 bits", () => {
    const uuidV7 = createUuidV7Generator();
    const now = Date.UTC(2020, 0, 1, 2, 30);
    const id = uuidV7(now + 10_000);
    expect(isTaskId(id)).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOf(id)).toBe(now + 10_000);
  });

  it("keeps ids of one millisecond in the order they were made, past the 12-bit sequence", () => {
    const uuidV7 = createUuidV7Generator();
    const now = Date.UTC(2020, 0, 1, 3, 0);
    const ids = Array.from({ length: 6000 }, () => uuidV7(now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(timeOf(ids[0]!)).toBe(now);
    // 6000 ids cannot fit in one millisecond's 4096 sequence values: the time field moved on, never back.
    expect(timeOf(ids.at(-1)!)).toBeGreaterThan(now);
  });

  it("never goes back when the clock does", () => {
    const uuidV7 = createUuidV7Generator();
    const later = Date.UTC(2020, 0, 1, 4, 0);
    const first = uuidV7(later);
    const second = uuidV7(later - 5_000);
    expect(second > first).toBe(true);
  });
});

it("the process's generator stamps the current time", () => {
  const before = Date.now();
  const id = processUuidV7();
  expect(timeOf(id)).toBeGreaterThanOrEqual(before);
  expect(timeOf(id)).toBeLessThanOrEqual(Date.now() + 1);
});
