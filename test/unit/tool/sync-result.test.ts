import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../../src/shared/text.ts";
import type { TaskRecord } from "../../../src/records/record.ts";
import { sessionLine, syncResultText } from "../../../src/tool/run-sync.ts";

const ID = "01912345-6789-7abc-8def-0123456789ab";
const LIMITS = { activityTimeoutMs: 600_000, hardTimeoutMs: 0 };

function record(fields: Partial<TaskRecord>): TaskRecord {
  return {
    version: 1,
    taskId: ID,
    agent: "coder",
    task: "Refactor the auth middleware.",
    mode: "sync",
    status: "succeeded",
    exitCode: 0,
    stopReason: "stop",
    usage: { ...emptyUsage(), turns: 5, input: 12_500, output: 3_200, cost: 0.0042 },
    durationMs: 154_000,
    dispatchedAt: 0,
    startedAt: 0,
    finishedAt: 154_000,
    output: "The middleware now uses async/await.",
    sessionFile: `/agent/subagent-sessions/${ID}/session.jsonl`,
    cwd: "/work",
    delivered: true,
    ...fields,
  };
}

describe("syncResultText", () => {
  it("a child killed from outside reads as killed, not as its last stop reason; a crash as crashed", () => {
    const killed = syncResultText(
      record({
        status: "failed",
        exitCode: null,
        stopReason: "killed",
        errorMessage: "the subagent process was killed by SIGKILL",
      }),
      LIMITS,
    );
    expect(killed).toContain(
      "- Stop reason: killed (a signal from outside pi-subagent-dispatch ended its pi process: kill, the OOM killer)\n- Error: the subagent process was killed by SIGKILL",
    );
    const crashed = syncResultText(
      record({
        status: "failed",
        exitCode: 7,
        stopReason: "crashed",
        errorMessage: "the subagent process exited with code 7",
      }),
      LIMITS,
    );
    expect(crashed).toContain("- Stop reason: crashed (its pi process exited with code 7 in the middle of its run)");
  });

  it("says when the usage was estimated: a line after the session line on success, a Usage note line otherwise", () => {
    const usageNote = "the provider reported no usable usage for 2 of 2 turns; their tokens are estimated";
    expect(syncResultText(record({ usageNote }), LIMITS)).toBe(
      `The middleware now uses async/await.\n\n[subagent session: ${ID}]\n[subagent usage: ${usageNote}]`,
    );
    expect(syncResultText(record({ status: "failed", errorMessage: "boom", usageNote }), LIMITS)).toContain(
      `\n- Usage note: ${usageNote}\n`,
    );
  });

  it("success is exactly the output, a blank line and the session line", () => {
    expect(syncResultText(record({}), LIMITS)).toBe(
      `The middleware now uses async/await.\n\n[subagent session: ${ID}]`,
    );
    expect(sessionLine(ID)).toBe(`[subagent session: ${ID}]`);
  });

  it("names each question nobody could answer, one line each, before the session line", () => {
    const asked = ['asked "Allow rm -rf build?": no one to answer (print mode)'];
    expect(syncResultText(record({ unansweredQuestions: asked }), LIMITS)).toBe(
      `The middleware now uses async/await.\n\n${asked[0]}\n\n[subagent session: ${ID}]`,
    );
    const failed = syncResultText(
      record({ status: "failed", errorMessage: "boom", unansweredQuestions: asked }),
      LIMITS,
    );
    expect(failed).toContain(`\n\n${asked[0]}\n\n[subagent session: ${ID}]`);
  });

  it("names the model and thinking a call chose, with their source, under the session line; a configured model is not named", () => {
    const chosen = record({ model: "fake/fake-cheap", modelSource: "call", thinking: "high", thinkingSource: "call" });
    expect(syncResultText(chosen, LIMITS)).toBe(
      `The middleware now uses async/await.\n\n[subagent session: ${ID}]\n[subagent model: fake/fake-cheap (call) · thinking: high (call)]`,
    );
    expect(syncResultText(record({ model: "fake/fake-model", modelSource: "user" }), LIMITS)).toBe(
      `The middleware now uses async/await.\n\n[subagent session: ${ID}]`,
    );
    expect(syncResultText({ ...chosen, status: "failed", output: "" }, LIMITS)).toContain(
      "\n- Model: fake/fake-cheap (call) · thinking: high (call)\n",
    );
  });

  it("success keeps a multi-line output untouched", () => {
    const output = "# Findings\n\n- one\n- two\n";
    expect(syncResultText(record({ output }), LIMITS)).toBe(`${output}\n\n[subagent session: ${ID}]`);
  });

  it("failure: status, stop reason, error, duration and usage, stderr tail, then the session line", () => {
    const text = syncResultText(
      record({
        status: "failed",
        exitCode: 1,
        stopReason: "error",
        errorMessage: "500 boom",
        output: "",
        stderrTail: "Error: 500 boom",
      }),
      LIMITS,
    );
    expect(text).toBe(
      [
        "Subagent coder failed.",
        "- Stop reason: error",
        "- Error: 500 boom",
        "- Duration: 02:34 · Usage: 5 turns/↑12.5k/↓3.2k/$0.0042",
        "- Stderr (last lines):",
        "Error: 500 boom",
        "",
        `[subagent session: ${ID}]`,
      ].join("\n"),
    );
  });

  it("failure keeps only the last 10 lines of stderr and any output so far", () => {
    const stderrTail = Array.from({ length: 15 }, (_, i) => `line ${i + 1}`).join("\n");
    const text = syncResultText(
      record({ status: "failed", stopReason: "length", output: "Half an ans", stderrTail }),
      LIMITS,
    );
    expect(text).toContain("- Stop reason: length");
    expect(text).not.toContain("line 5\n");
    expect(text).toContain("line 6\nline 7");
    expect(text).toContain("line 15");
    expect(text.endsWith(`Output so far:\nHalf an ans\n\n[subagent session: ${ID}]`)).toBe(true);
  });

  it("timeouts explain the stop reason with the limit in seconds", () => {
    const activity = syncResultText(record({ status: "timed out", stopReason: "activity_timeout", output: "" }), {
      activityTimeoutMs: 90_000,
      hardTimeoutMs: 0,
    });
    expect(activity.split("\n").slice(0, 2)).toEqual([
      "Subagent coder timed out.",
      "- Stop reason: activity_timeout (no output for 90 s)",
    ]);
    const hard = syncResultText(record({ status: "timed out", stopReason: "hard_timeout", output: "" }), {
      activityTimeoutMs: 0,
      hardTimeoutMs: 1_800_000,
    });
    expect(hard).toContain("- Stop reason: hard_timeout (ran longer than 1800 s)");
    expect(hard.endsWith(`\n\n[subagent session: ${ID}]`)).toBe(true);
  });

  it("a cancelled call says it was interrupted", () => {
    const text = syncResultText(
      record({ status: "cancelled", stopReason: "aborted", output: "", durationMs: 3_725_000 }),
      LIMITS,
    );
    expect(text).toContain("Subagent coder cancelled.");
    expect(text).toContain("- Stop reason: aborted (the call was interrupted)");
    expect(text).toContain("- Duration: 1:02:05 · ");
  });

  it("leaves out lines that have nothing to say", () => {
    const text = syncResultText(
      record({ status: "failed", stopReason: undefined, errorMessage: undefined, output: " ", stderrTail: undefined }),
      LIMITS,
    );
    expect(text).toBe(
      [
        "Subagent coder failed.",
        "- Duration: 02:34 · Usage: 5 turns/↑12.5k/↓3.2k/$0.0042",
        "",
        `[subagent session: ${ID}]`,
      ].join("\n"),
    );
  });
});

describe("syncResultText: a sandboxed task", () => {
  const origin = { depth: 1, maxDepth: 1, context: "fresh" as const, sandbox: "read-only" as const };
  it("names the sandbox after the session line when it succeeded, and in the metadata when it did not", () => {
    expect(syncResultText(record({ origin }), LIMITS)).toBe(
      `The middleware now uses async/await.\n\n[subagent session: ${ID}]\n[subagent sandbox: read-only]`,
    );
    expect(syncResultText(record({ origin, status: "failed", exitCode: 1 }), LIMITS)).toContain(
      "\n- Sandbox: read-only\n",
    );
  });
});
