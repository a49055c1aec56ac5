import { describe, expect, it } from "vitest";
import {
  recentResultLines,
  resultJsonLine,
  resultPlainText,
  resultStatusLine,
  statusWithCause,
} from "../../../src/commands/task-commands.ts";
import { ID_A, record } from "../pi/commands/fakes.ts";

describe("a finished task as text", () => {
  it("has a status line with agent, status, duration, usage and model", () => {
    expect(resultStatusLine(record(ID_A))).toBe(
      "coder · succeeded · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042 · fake/fake-model",
    );
  });

  it("says who cancelled a cancelled task, and why a timed-out one stopped", () => {
    expect(statusWithCause(record(ID_A, { status: "cancelled", cancelledBy: "user" }))).toBe("cancelled by user");
    expect(statusWithCause(record(ID_A, { status: "cancelled", cancelledBy: "agent" }))).toBe(
      "cancelled by main agent",
    );
    expect(statusWithCause(record(ID_A, { status: "cancelled", cancelledBy: "none" }))).toBe(
      "cancelled by session shutdown",
    );
    expect(statusWithCause(record(ID_A, { status: "timed out", stopReason: "activity_timeout" }))).toBe(
      "timed out (activity_timeout)",
    );
  });

  it("prints as metadata lines, a --- line, then the whole output, so a script can split it", () => {
    const output = "# Report\n\n---\n\nA line after a rule.";
    const text = resultPlainText(record(ID_A, { output, mode: "sync" }));
    const [meta, ...rest] = text.split("\n---\n");
    expect(rest.join("\n---\n")).toBe(`${output}\n`);
    expect(meta!.split("\n")).toEqual([
      `Task id: ${ID_A}`,
      "Agent: coder",
      "Status: succeeded",
      "Duration: 02:34",
      "Usage: 5 turns/↑12.5k/↓3.2k/$0.0042",
      "Model: fake/fake-model",
      "Mode: synchronous",
      `Finished: ${new Date(155_000).toISOString()}`,
      `Session file: /agent/subagent-sessions/${ID_A}/session.jsonl`,
      "Task: Refactor the auth middleware.",
    ]);
  });

  it("says where the model and thinking level came from", () => {
    const text = resultPlainText(record(ID_A, { modelSource: "call", thinking: "high", thinkingSource: "call" }));
    expect(text).toContain("\nModel: fake/fake-model (call) · thinking: high (call)\n");
  });

  it("shows the error, stop reason and cancel reason of a task that did not succeed", () => {
    const text = resultPlainText(
      record(ID_A, {
        status: "cancelled",
        cancelledBy: "agent",
        stopReason: "aborted",
        errorMessage: "killed",
        cancelReason: "obsolete",
      }),
    );
    expect(text).toContain("Status: cancelled by main agent\n");
    expect(text).toContain("Stop reason: aborted\nError: killed\nCancellation reason: obsolete\n");
  });

  it("is one JSON line in JSON mode: the record without its envelope", () => {
    const line = resultJsonLine(record(ID_A));
    expect(line.endsWith("\n")).toBe(true);
    expect(line.trim()).not.toContain("\n");
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      type: "subagent_result",
      taskId: ID_A,
      status: "succeeded",
      output: "# Done\n\nThree files changed.",
    });
    expect(parsed).not.toHaveProperty("envelope");
  });

  it("lists recent tasks one a line", () => {
    expect(recentResultLines([record(ID_A, { task: "Line one\nline two" })])).toEqual([
      `${ID_A}  coder  succeeded  Line one line two`,
    ]);
  });
});

describe("resultPlainText: depth and fork", () => {
  it("names the depth under a limit above 1 and a fork, after the mode; nothing for a plain task", () => {
    const nested = resultPlainText(
      record(ID_A, { origin: { depth: 2, maxDepth: 3, context: "fork", forkedMessages: 12 } }),
    );
    expect(nested).toMatch(/\nMode: [a-z]+\nDepth: 2 of 3\nContext: forked \(12 messages\)\nFinished: /);
    const plain = resultPlainText(record(ID_A, { origin: { depth: 1, maxDepth: 1, context: "fresh" } }));
    expect(plain).not.toMatch(/Depth:|Context:/);
    const narrowed = resultPlainText(
      record(ID_A, {
        origin: {
          depth: 1,
          maxDepth: 1,
          context: "fresh",
          toolsNotGranted: "tools not granted: bash (not active in the main session)",
        },
      }),
    );
    expect(narrowed).toMatch(/\nNote: tools not granted: bash \(not active in the main session\)\nFinished: /);
  });
});
