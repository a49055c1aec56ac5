import { describe, expect, it } from "vitest";
import { classifyRun, type ExitFacts } from "../../../src/run/outcome.ts";
import { initialRunState, type RunState } from "../../../src/run/event-reducer.ts";

function state(fields: Partial<RunState>): RunState {
  return { ...initialRunState(0), ...fields };
}

const answered = state({ finalText: "All done.", stopReason: "stop" });
const cleanExit: ExitFacts = { exitCode: 0, signal: null };

describe("classifyRun", () => {
  it("succeeded: exit 0, a normal stop and a final answer", () => {
    expect(classifyRun(answered, cleanExit)).toEqual({ status: "succeeded", stopReason: "stop" });
  });

  it("failed: a non-zero exit, with the child's error or a description of the exit", () => {
    expect(classifyRun(answered, { exitCode: 1, signal: null })).toEqual({
      status: "failed",
      stopReason: "crashed",
      errorMessage: "the subagent process exited with code 1",
    });
    expect(
      classifyRun(state({ finalText: "", errorMessage: "No API key for provider fake" }), {
        exitCode: 1,
        signal: null,
      }),
    ).toEqual({
      status: "failed",
      stopReason: "crashed",
      errorMessage: "No API key for provider fake",
    });
  });

  it("failed: killed by a signal nobody on our side sent, labelled killed rather than by its last stop reason", () => {
    const midTool = state({ finalText: "", lastText: "Running it.", stopReason: "toolUse" });
    expect(classifyRun(midTool, { exitCode: null, signal: "SIGKILL" })).toEqual({
      status: "failed",
      stopReason: "killed",
      errorMessage: "the subagent process was killed by SIGKILL",
    });
    expect(classifyRun(midTool, { exitCode: 7, signal: null })).toMatchObject({
      status: "failed",
      stopReason: "crashed",
    });
    // A stop reason that explains the failure stays.
    expect(
      classifyRun(state({ stopReason: "error", errorMessage: "500 boom" }), { exitCode: 1, signal: null }),
    ).toMatchObject({ stopReason: "error" });
    expect(classifyRun(answered, { exitCode: null, signal: null }).errorMessage).toBe(
      "the subagent process was killed by a signal",
    );
  });

  it("failed: stop reasons error, length, deferred and aborted, even after exit 0 with text", () => {
    expect(classifyRun(state({ finalText: "", stopReason: "error", errorMessage: "500 boom" }), cleanExit)).toEqual({
      status: "failed",
      stopReason: "error",
      errorMessage: "500 boom",
    });
    expect(classifyRun(state({ finalText: "Half an ans", stopReason: "length" }), cleanExit)).toEqual({
      status: "failed",
      stopReason: "length",
      errorMessage: "the answer was cut off at the model's output limit",
    });
    expect(classifyRun(state({ finalText: "later", stopReason: "deferred" }), cleanExit)).toEqual({
      status: "failed",
      stopReason: "deferred",
      errorMessage: 'the model stopped with reason "deferred"',
    });
    expect(classifyRun(state({ finalText: "", stopReason: "aborted" }), cleanExit)).toEqual({
      status: "failed",
      stopReason: "aborted",
      errorMessage: 'the model stopped with reason "aborted"',
    });
  });

  it("failed: an error message with an otherwise normal stop", () => {
    expect(
      classifyRun(state({ finalText: "x", stopReason: "stop", errorMessage: "Retry cancelled" }), cleanExit),
    ).toEqual({
      status: "failed",
      stopReason: "stop",
      errorMessage: "Retry cancelled",
    });
  });

  it("failed: no final text (blank counts as none)", () => {
    expect(classifyRun(state({ finalText: "  \n ", stopReason: "stop" }), cleanExit)).toEqual({
      status: "failed",
      stopReason: "stop",
      errorMessage: "the subagent produced no final answer",
    });
    expect(classifyRun(state({ finalText: "", stopReason: "toolUse" }), cleanExit).status).toBe("failed");
  });

  it("timed out: activity_timeout and hard_timeout win over whatever the child did", () => {
    expect(classifyRun(answered, { exitCode: null, signal: "SIGTERM", cause: "activity_timeout" })).toEqual({
      status: "timed out",
      stopReason: "activity_timeout",
      errorMessage: undefined,
    });
    expect(
      classifyRun(state({ errorMessage: "500 boom" }), { exitCode: 143, signal: null, cause: "hard_timeout" }),
    ).toEqual({
      status: "timed out",
      stopReason: "hard_timeout",
      errorMessage: "500 boom",
    });
  });

  it("cancelled: aborted and killed_on_shutdown", () => {
    expect(classifyRun(answered, { exitCode: null, signal: "SIGTERM", cause: "aborted" })).toEqual({
      status: "cancelled",
      stopReason: "aborted",
      errorMessage: undefined,
    });
    expect(classifyRun(answered, { exitCode: 0, signal: null, cause: "killed_on_shutdown" })).toMatchObject({
      status: "cancelled",
      stopReason: "killed_on_shutdown",
    });
  });

  it("our own stop is not the child's error: its answer to our abort is dropped (an error of its own stays: see hard_timeout above)", () => {
    const abortAnswer = state({ finalText: "", stopReason: "aborted", errorMessage: "Request was aborted" });
    for (const cause of ["activity_timeout", "hard_timeout", "aborted", "killed_on_shutdown"] as const) {
      expect(classifyRun(abortAnswer, { exitCode: null, signal: "SIGTERM", cause }).errorMessage).toBeUndefined();
    }
    // A budget stop says which budget; its own text, never the abort answer.
    expect(
      classifyRun(abortAnswer, {
        exitCode: null,
        signal: "SIGTERM",
        cause: "budget",
        budgetHit: { kind: "turn", limit: 2 },
      }).errorMessage,
    ).toBe("turn budget 2 reached");
    // A loop stop is `stopped`, and its reason says loop and names the repeated call.
    expect(
      classifyRun(abortAnswer, {
        exitCode: null,
        signal: "SIGTERM",
        cause: "loop",
        loopHit: { pattern: "bash ls", calls: 12, cycle: false },
      }),
    ).toEqual({ status: "stopped", stopReason: "loop", errorMessage: "loop: bash ls repeated 12 times in a row" });
    // Without our stop, an aborted turn is still the child's failure.
    expect(classifyRun(abortAnswer, cleanExit)).toMatchObject({
      status: "failed",
      errorMessage: "Request was aborted",
    });
  });

  it("failed: the process could not be started", () => {
    expect(
      classifyRun(initialRunState(0), {
        exitCode: null,
        signal: null,
        spawnError: "could not start the subagent process: spawn pi ENOENT",
      }),
    ).toEqual({
      status: "failed",
      stopReason: "error",
      errorMessage: "could not start the subagent process: spawn pi ENOENT",
    });
  });
});
