import { describe, expect, it } from "vitest";
import { resultMetadataLines, resultPlainText } from "../../../src/commands/task-commands.ts";
import { buildEnvelope } from "../../../src/delivery/envelope.ts";
import { initialRunState } from "../../../src/run/event-reducer.ts";
import { messageBlock, shownOutput } from "../../../src/records/record.ts";
import { syncResultText } from "../../../src/tool/run-sync.ts";
import { frameOf } from "../../../src/pi/ui/views.ts";
import { ID_A, record, snapshot } from "../pi/commands/fakes.ts";

const LIMITS = { activityTimeoutMs: 600_000, hardTimeoutMs: 0 };
const AT = Date.UTC(2026, 10, 30, 12, 3, 4);

describe("a stopped run's partial output", () => {
  const stopped = record(ID_A, {
    status: "timed out",
    stopReason: "activity_timeout",
    output: "Read 2 of 4 files.",
    partialTools: ["read: a.ts", "bash: sleep 60"],
  });

  it("is the envelope's body under the heading, status word unchanged", () => {
    const envelope = buildEnvelope(stopped, [], LIMITS);
    expect(envelope).toContain("- Status: timed out");
    expect(envelope.split("---\n")[1]).toBe(
      "Partial output before it was stopped:\nRead 2 of 4 files.\n\nTools it ran (2):\n- read: a.ts\n- bash: sleep 60",
    );
  });

  it("is shown the same way in the blocking result and /subagent-result", () => {
    expect(syncResultText({ ...stopped, mode: "sync" }, LIMITS)).toContain(
      "\n\nPartial output before it was stopped:\nRead 2 of 4 files.\n",
    );
    expect(resultPlainText(stopped).split("---\n")[1]).toBe(`${shownOutput(stopped)}\n`);
  });

  it("a cancelled run keeps the cancel's explanation first", () => {
    const cancelled = { ...stopped, status: "cancelled" as const, stopReason: "aborted", cancelledBy: "user" as const };
    const body = buildEnvelope(cancelled, [], LIMITS).split("---\n")[1]!;
    expect(body).toMatch(
      /^This task was cancelled by the user \(\/subagent-cancel\)\..*\n\nPartial output before it was stopped:\nRead 2 of 4 files\./s,
    );
  });

  it("a cancelled record without partialTools (written at pi's hard exit, or before) has the same heading", () => {
    const old = record(ID_A, { status: "cancelled", cancelledBy: "user", output: "old text" });
    expect(buildEnvelope(old, [], LIMITS)).toContain("\n\nPartial output before it was stopped:\nold text");
  });
});

describe("messages sent to a task", () => {
  const messages = [
    { at: AT, from: "agent" as const, text: "also b.ts", delivery: "steer" as const },
    { at: AT + 1000, from: "user" as const, text: "line one\nline two", delivery: "queued" as const },
  ];

  it("are listed in /subagent-result's metadata, one line each", () => {
    expect(messageBlock(messages)).toEqual([
      "Messages sent to it (2):",
      "- 12:03:04 from the main agent (while running): also b.ts",
      "- 12:03:05 from the user (while queued): line one line two",
    ]);
    expect(resultMetadataLines(record(ID_A, { messages }))).toContain(
      "- 12:03:04 from the main agent (while running): also b.ts",
    );
    expect(messageBlock(undefined)).toEqual([]);
  });

  it("appear in /subagent-watch's activity in time order", () => {
    const state = initialRunState(AT - 5000);
    state.activity.push(
      { at: AT - 1000, kind: "tool", text: "bash: ls" },
      { at: AT + 500, kind: "tool", text: "read: b.ts" },
    );
    const frame = frameOf(snapshot(ID_A, { state, messages }), AT + 2000);
    expect(frame.activity.map((line) => `${line.kind}: ${line.text}`)).toEqual([
      "tool: bash: ls",
      "message: message from the main agent: also b.ts",
      "tool: read: b.ts",
      "message: message from the user: line one\nline two",
    ]);
  });
});
