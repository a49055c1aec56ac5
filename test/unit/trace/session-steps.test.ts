import { describe, expect, it } from "vitest";
import { sessionSteps, STEP_TEXT_CHARS } from "../../../src/trace/session-steps.ts";
import { assistantLine, LEAF, STEP2_SESSION, T0, toolResultLine, userLine } from "./trace-fixtures.ts";

describe("a session file read as a trace's steps", () => {
  it("gives each turn with its time, tokens and cost, each tool call with its time and short result, and later prompts", () => {
    const steps = sessionSteps(STEP2_SESSION);
    expect(steps.map((step) => (step.kind === "tool" ? `tool ${step.name}` : step.kind))).toEqual([
      "turn",
      "tool bash",
      "turn",
      "tool read",
      "turn",
      "tool subagent",
      "prompt",
      "turn",
    ]);
    const [turn1, bash, turn2, read, , call, prompt, last] = steps;
    expect(turn1).toMatchObject({
      kind: "turn",
      index: 1,
      start: T0 + 1020,
      end: T0 + 1060,
      input: 100,
      output: 20,
      cacheRead: 5,
      cost: 0.0001,
      model: "fake/fake-model",
      stopReason: "toolUse",
    });
    expect(bash).toMatchObject({
      kind: "tool",
      name: "bash",
      args: "npm test",
      start: T0 + 1060,
      end: T0 + 1400,
      isError: false,
    });
    // A long result is shortened to one line.
    const bashResult = bash?.kind === "tool" ? (bash.result ?? "") : "";
    expect(bashResult.length).toBe(STEP_TEXT_CHARS);
    expect(bashResult.endsWith("…")).toBe(true);
    expect(turn2).toMatchObject({ cost: 0.0009 });
    expect(read).toMatchObject({ isError: true, result: "ENOENT: no such file" });
    expect(call).toMatchObject({ args: "worker: leaf job", childTaskIds: [LEAF] });
    expect(prompt).toEqual({ kind: "prompt", at: T0 + 2510, text: "Check your answer again." });
    expect(last).toMatchObject({ index: 4, text: "MIDDLE-DONE", stopReason: "stop" });
  });

  it("takes a tool's own duration (pi 1.x) as its start, so parallel calls each get theirs", () => {
    const steps = sessionSteps(
      [
        userLine(0, "Task: x"),
        assistantLine(10, 20, {
          calls: [
            { id: "a", name: "bash", args: { command: "a" } },
            { id: "b", name: "bash", args: { command: "b" } },
          ],
        }),
        toolResultLine(100, "b", "bash", "b", { durationMs: 30 }),
        toolResultLine(500, "a", "bash", "a", { durationMs: 480 }),
      ].join("\n"),
    );
    expect(steps.filter((step) => step.kind === "tool").map((step) => [step.start - T0, step.end! - T0])).toEqual([
      [20, 500],
      [70, 100],
    ]);
  });

  it("keeps a tool call without a result open (the child still runs it), and skips what is not a pi entry", () => {
    const steps = sessionSteps(
      [
        "{broken",
        userLine(0, "Task: x"),
        assistantLine(10, 20, { calls: [{ id: "a", name: "bash", args: { command: "sleep 9" } }] }),
        "[1,2]",
      ].join("\n"),
    );
    expect(steps).toHaveLength(2);
    expect(steps[1]).toMatchObject({ kind: "tool", name: "bash" });
    const open = steps[1];
    expect(open?.kind === "tool" ? open.end : "not a tool").toBeUndefined();
  });

  it("takes control sequences out of what it keeps", () => {
    const steps = sessionSteps(
      [userLine(0, "Task: x"), assistantLine(10, 20, { text: "\u001b]0;title\u0007hi\u001b[2J there" })].join("\n"),
    );
    const turn = steps[0];
    expect(turn?.kind === "turn" ? turn.text : "").toBe("hi there");
  });
});
