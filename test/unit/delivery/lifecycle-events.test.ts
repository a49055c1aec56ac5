/**
 * The lifecycle events' payloads as other extensions receive them, and the sink over pi's event bus: a bus that
 * throws (pi 1.x's stale extension API after a reload) costs the event, never the caller.
 */
import { describe, expect, it } from "vitest";
import { endedEvent, eventBusSink, LIFECYCLE_CHANNELS } from "../../../src/delivery/lifecycle-events.ts";
import type { TaskRecord } from "../../../src/records/record.ts";

const record = {
  version: 1,
  taskId: "t1",
  agent: "worker",
  task: "do it",
  mode: "async",
  status: "cancelled",
  exitCode: null,
  stopReason: "aborted",
  cancelledBy: "user",
  usage: { turns: 2, input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: 0.01, contextTokens: 15 },
  model: "fake/fake-model",
  durationMs: 1500,
  dispatchedAt: 0,
  finishedAt: 1500,
  output: "secret partial output",
  sessionFile: "/agent/subagent-sessions/t1/session.jsonl",
  cwd: "/work",
  delivered: false,
} satisfies TaskRecord;

describe("lifecycle events", () => {
  it("an ended event carries the record's facts, and neither its output nor its envelope", () => {
    const event = endedEvent(record, 2000);
    expect(event).toEqual({
      source: "pi-subagent-dispatch",
      taskId: "t1",
      agent: "worker",
      task: "do it",
      mode: "async",
      at: 2000,
      traceId: "000000000000000000000000000000t1",
      spanId: "00000000000000t1",
      status: "cancelled",
      stopReason: "aborted",
      cancelledBy: "user",
      durationMs: 1500,
      usage: record.usage,
      model: "fake/fake-model",
      sessionFile: record.sessionFile,
    });
    // A copy: a listener changing it changes nothing of ours.
    expect(event.usage).not.toBe(record.usage);
  });

  it("carries the ids its span has in /subagent-trace --json: a part's trace and parent are its batch's or chain's", () => {
    const taskId = "01a24476-5637-7465-a195-249f4152e710";
    const chainId = "01a24476-4aee-7358-97d3-ac842c74cf99";
    const single = endedEvent({ ...record, taskId }, 1);
    expect([single.traceId, single.spanId, single.parentSpanId]).toEqual([
      "01a2447656377465a195249f4152e710",
      "a195249f4152e710",
      undefined,
    ]);
    const part = endedEvent({ ...record, taskId, workflow: { id: chainId, kind: "chain", index: 2, total: 2 } }, 1);
    expect([part.traceId, part.spanId, part.parentSpanId]).toEqual([
      "01a244764aee735897d3ac842c74cf99",
      "a195249f4152e710",
      "17d3ac842c74cf99",
    ]);
  });

  it("the sink emits on the bus and swallows a bus that throws", () => {
    const emitted: Array<[string, unknown]> = [];
    eventBusSink({ emit: (channel, data) => emitted.push([channel, data]) })(
      LIFECYCLE_CHANNELS.ended,
      endedEvent(record, 1),
    );
    expect(emitted.map(([channel]) => channel)).toEqual(["subagent:ended"]);
    const stale = eventBusSink({
      emit: () => {
        throw new Error("This extension ctx is stale");
      },
    });
    expect(() => stale(LIFECYCLE_CHANNELS.ended, endedEvent(record, 1))).not.toThrow();
    expect(() => eventBusSink(undefined)(LIFECYCLE_CHANNELS.ended, endedEvent(record, 1))).not.toThrow();
  });
});
