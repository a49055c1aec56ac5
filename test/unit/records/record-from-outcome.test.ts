import { describe, expect, it } from "vitest";
import type { RunOutcome } from "../../../src/run/event-reducer.ts";
import { emptyUsage } from "../../../src/shared/text.ts";
import { detailsFromRecord } from "../../../src/records/record-store.ts";
import { recordFromOutcome, type RecordContext } from "../../../src/records/record.ts";

const ID = "01912345-6789-7abc-8def-0123456789ab";

const context: RecordContext = {
  taskId: ID,
  agent: "coder",
  task: "Refactor the auth middleware.",
  mode: "async",
  sessionFile: `/a/${ID}/session.jsonl`,
  cwd: "/work",
  dispatchedAt: 1000,
  parentSessionId: "parent",
};

function outcome(fields: Partial<RunOutcome> = {}): RunOutcome {
  return {
    status: "succeeded",
    exitCode: 0,
    signal: null,
    stopReason: "stop",
    output: "Done.",
    usage: { ...emptyUsage(), turns: 5, input: 12_500, output: 3_200, cost: 0.0042 },
    model: "fake/fake-model",
    startedAt: 1200,
    finishedAt: 155_200,
    durationMs: 154_000,
    stderrTail: "",
    ...fields,
  };
}

describe("recordFromOutcome", () => {
  it("copies the run's facts and the dispatch context, not yet delivered", () => {
    const record = recordFromOutcome(context, outcome());
    expect(record).toEqual({
      version: 1,
      taskId: ID,
      agent: "coder",
      task: "Refactor the auth middleware.",
      mode: "async",
      status: "succeeded",
      exitCode: 0,
      stopReason: "stop",
      errorMessage: undefined,
      usage: outcome().usage,
      model: "fake/fake-model",
      durationMs: 154_000,
      dispatchedAt: 1000,
      startedAt: 1200,
      finishedAt: 155_200,
      output: "Done.",
      stderrTail: undefined,
      sessionFile: `/a/${ID}/session.jsonl`,
      cwd: "/work",
      parentSessionId: "parent",
      delivered: false,
    });
  });

  it("keeps where the model and thinking came from, and the started model when pi reported none", () => {
    const resolved = {
      model: { value: "fake/fake-cheap", source: "call" as const },
      thinking: { value: "high" as const, source: "call" as const },
    };
    expect(recordFromOutcome({ ...context, resolved }, outcome())).toMatchObject({
      model: "fake/fake-model",
      modelSource: "call",
      thinking: "high",
      thinkingSource: "call",
    });
    const never = recordFromOutcome(
      { ...context, resolved: { model: resolved.model, thinking: {} } },
      outcome({ model: undefined }),
    );
    expect(never).toMatchObject({ model: "fake/fake-cheap", modelSource: "call" });
    expect(never).not.toHaveProperty("thinking");
  });

  it("keeps a stderr tail when there is one", () => {
    expect(recordFromOutcome(context, outcome({ status: "failed", stderrTail: "boom" })).stderrTail).toBe("boom");
  });

  it("marks who cancelled: the user for an abort, nobody for a shutdown, or whoever the caller says", () => {
    expect(recordFromOutcome(context, outcome({ status: "cancelled", stopReason: "aborted" })).cancelledBy).toBe(
      "user",
    );
    expect(
      recordFromOutcome(context, outcome({ status: "cancelled", stopReason: "killed_on_shutdown" })).cancelledBy,
    ).toBe("none");
    const byAgent = recordFromOutcome(
      { ...context, cancelledBy: "agent", cancelReason: "no longer needed" },
      outcome({ status: "cancelled", stopReason: "aborted" }),
    );
    expect(byAgent).toMatchObject({ cancelledBy: "agent", cancelReason: "no longer needed" });
  });

  it("has no cancel fields for other statuses", () => {
    const record = recordFromOutcome(
      { ...context, cancelledBy: "agent", cancelReason: "x" },
      outcome({ status: "timed out", stopReason: "hard_timeout" }),
    );
    expect(record.cancelledBy).toBeUndefined();
    expect(record.cancelReason).toBeUndefined();
  });
});

describe("detailsFromRecord", () => {
  it("carries the spec's structured fields, sessionId equal to taskId", () => {
    const details = detailsFromRecord(recordFromOutcome(context, outcome()));
    expect(details).toEqual({
      taskId: ID,
      agent: "coder",
      task: "Refactor the auth middleware.",
      status: "succeeded",
      exitCode: 0,
      stopReason: "stop",
      errorMessage: undefined,
      cancelledBy: undefined,
      cancelReason: undefined,
      durationMs: 154_000,
      // Which run the result is of: a resumed task's new result is told apart from the old one by it.
      dispatchedAt: 1000,
      usage: outcome().usage,
      model: "fake/fake-model",
      sessionId: ID,
      output: "Done.",
    });
  });
});
