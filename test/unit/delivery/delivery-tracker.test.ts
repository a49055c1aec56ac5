import { describe, expect, it } from "vitest";
import { DeliveryTracker } from "../../../src/delivery/delivery-tracker.ts";

describe("acknowledged delivery", () => {
  it("sends again, after a normal end, every queued result pi dropped (Esc's dequeue cleared its queue)", () => {
    const tracker = new DeliveryTracker();
    tracker.runStarted();
    for (const id of ["a", "b", "c", "d"]) tracker.sent(id, "queue");
    tracker.acknowledge("a");
    // b, c, d were cleared from pi's steer queue; the run went on and ended normally.
    expect(tracker.runEnded(false)).toEqual(["b", "c", "d"]);
    for (const id of ["b", "c", "d"]) expect(tracker.isAwaiting(id)).toBe(true);
  });

  it("after a failed or aborted run sends only the oldest, as a probe, and the rest after the probe's run", () => {
    const tracker = new DeliveryTracker();
    tracker.runStarted();
    for (const id of ["a", "b", "c"]) tracker.sent(id, "queue");
    expect(tracker.runEnded(true)).toEqual(["a"]);
    tracker.sent("a", "prompt");
    tracker.runStarted();
    // pi still held b (a failed model call keeps the queue): the probe's run drains and acknowledges it.
    tracker.acknowledge("a");
    tracker.acknowledge("b");
    expect(tracker.runEnded(false)).toEqual(["c"]);
  });

  it("delivers two runs of one task (a resume) each once: the new run is a result of its own", () => {
    const tracker = new DeliveryTracker();
    tracker.sent("a", "prompt", "100");
    expect(tracker.acknowledge("a", "100")).toBe("first");
    // The resumed run's result, under the same taskId, is neither skipped nor called a copy.
    expect(tracker.isAcknowledged("a", "200")).toBe(false);
    tracker.sent("a", "queue", "200");
    expect(tracker.isAwaiting("a")).toBe(true);
    expect(tracker.acknowledge("a", "200")).toBe("first");
    expect(tracker.isAwaiting("a")).toBe(false);
    // Each run's second copy is still a duplicate.
    expect(tracker.acknowledge("a", "200")).toBe("duplicate");
    expect(tracker.acknowledge("a", "100")).toBe("duplicate");
  });

  it("a late copy of a task's earlier run leaves its new run's result awaited", () => {
    const tracker = new DeliveryTracker();
    tracker.sent("a", "queue", "100");
    expect(tracker.acknowledge("a", "100")).toBe("first");
    tracker.sent("a", "queue", "200");
    // pi still held a copy of the first run's result: a duplicate, and the new result is still awaited.
    expect(tracker.acknowledge("a", "100")).toBe("duplicate");
    expect(tracker.isAwaiting("a")).toBe(true);
    tracker.runStarted();
    expect(tracker.runEnded(false)).toEqual(["a"]);
  });

  it("delivers one run sent twice (a resend, a reload) once", () => {
    const tracker = new DeliveryTracker();
    tracker.sent("a", "queue", "100");
    tracker.runStarted();
    expect(tracker.runEnded(false)).toEqual(["a"]);
    tracker.sent("a", "queue", "100");
    expect(tracker.acknowledge("a", "100")).toBe("first");
    expect(tracker.acknowledge("a", "100")).toBe("duplicate");
    tracker.sent("a", "queue", "100");
    expect(tracker.isAwaiting("a")).toBe(false);
  });

  it("acknowledges each result once; a second copy is a duplicate", () => {
    const tracker = new DeliveryTracker();
    tracker.sent("a", "queue");
    expect(tracker.acknowledge("a")).toBe("first");
    expect(tracker.acknowledge("a")).toBe("duplicate");
    expect(tracker.isAcknowledged("a")).toBe(true);
    // An acknowledged result is never awaited again, even if sent.
    tracker.sent("a", "queue");
    expect(tracker.isAwaiting("a")).toBe(false);
    expect(tracker.runEnded(false)).toEqual([]);
  });

  it("judges a result sent as a prompt only at the end of a run that started after it", () => {
    const tracker = new DeliveryTracker();
    // Sent while pi was idle: it starts its own run, whose agent_start comes after this run's end.
    tracker.sent("a", "prompt");
    expect(tracker.runEnded(false)).toEqual([]);
    tracker.runStarted();
    // pi refused the prompt (it was lost): the next run's end sends it again.
    expect(tracker.runEnded(false)).toEqual(["a"]);
  });

  it("sends a result again at most maxResends times, then leaves it to the outbox", () => {
    const tracker = new DeliveryTracker(2);
    tracker.sent("a", "queue");
    expect(tracker.runEnded(false)).toEqual(["a"]);
    tracker.sent("a", "queue");
    expect(tracker.runEnded(false)).toEqual(["a"]);
    tracker.sent("a", "queue");
    expect(tracker.runEnded(false)).toEqual([]);
    expect(tracker.isAwaiting("a")).toBe(true);
  });

  it("keeps send order across resends", () => {
    const tracker = new DeliveryTracker();
    tracker.sent("a", "queue");
    tracker.sent("b", "queue");
    expect(tracker.runEnded(true)).toEqual(["a"]);
    tracker.sent("a", "queue");
    expect(tracker.runEnded(false)).toEqual(["b", "a"]);
  });
});
