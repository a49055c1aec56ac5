import { describe, expect, it } from "vitest";
import { MIN_PREFIX_LENGTH, resolveTaskPrefix } from "../../../src/commands/task-commands.ts";
import { ID_A, ID_B, ID_C } from "../pi/commands/fakes.ts";

const tasks = [
  { taskId: ID_A, agent: "coder" },
  { taskId: ID_B, agent: "writer" },
  { taskId: ID_C, agent: "coder" },
];

describe("resolving a typed task id or prefix", () => {
  it("finds the one task a unique prefix of 4+ characters starts", () => {
    expect(resolveTaskPrefix("01912399", tasks)).toEqual({ kind: "found", task: tasks[2] });
    expect(resolveTaskPrefix(ID_A.slice(0, 20), tasks)).toEqual({ kind: "found", task: tasks[0] });
  });

  it("finds a full id, ignoring surrounding spaces and case", () => {
    expect(resolveTaskPrefix(`  ${ID_B.toUpperCase()} `, tasks)).toEqual({ kind: "found", task: tasks[1] });
  });

  it("reports an ambiguous prefix with every task it matches", () => {
    const resolved = resolveTaskPrefix("0191", tasks);
    expect(resolved).toEqual({ kind: "ambiguous", prefix: "0191", matches: tasks });
    expect(resolveTaskPrefix("01912345-6789-7abc", tasks)).toEqual({
      kind: "ambiguous",
      prefix: "01912345-6789-7abc",
      matches: [tasks[0], tasks[1]],
    });
  });

  it("refuses a prefix shorter than 4 characters, even when it would be unique", () => {
    expect(MIN_PREFIX_LENGTH).toBe(4);
    expect(resolveTaskPrefix("019", [tasks[0]!])).toEqual({ kind: "too-short", prefix: "019" });
  });

  it("reports a prefix no task starts as unknown, and nothing typed as empty", () => {
    expect(resolveTaskPrefix("ffff", tasks)).toEqual({ kind: "unknown", prefix: "ffff" });
    expect(resolveTaskPrefix("abcd", [])).toEqual({ kind: "unknown", prefix: "abcd" });
    expect(resolveTaskPrefix("   ", tasks)).toEqual({ kind: "empty" });
  });

  it("counts a task listed twice (running and on disk) once", () => {
    expect(resolveTaskPrefix("01912399", [...tasks, { taskId: ID_C, agent: "coder" }])).toMatchObject({
      kind: "found",
    });
  });

  it("finds the task whose end is typed: the short id the widget and the cards show", () => {
    // ID_A and ID_B were made in the same millisecond: their starts are alike up to the 19th character.
    expect(resolveTaskPrefix(ID_B.slice(-8), tasks)).toEqual({ kind: "found", task: tasks[1] });
    expect(resolveTaskPrefix(ID_A.slice(-8).toUpperCase(), tasks)).toEqual({ kind: "found", task: tasks[0] });
  });

  it("counts a start of one id and an end of another as two matches", () => {
    const start = { taskId: "0123abcd-0000-7000-8000-000000000001" };
    const end = { taskId: "01912345-0000-7000-8000-00000123abcd" };
    expect(resolveTaskPrefix("0123abcd", [start, end])).toEqual({
      kind: "ambiguous",
      prefix: "0123abcd",
      matches: [start, end],
    });
  });
});
