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

  it("a task's new run (a resume) is delivered and acknowledged as a result of its own", () => {
    const tracker = new DeliveryTracker();
    tracker.sent("a", "prompt");
    expect(tracker.acknowledge("a")).toBe("first");
    tracker.newRun("a");
    expect(tracker.isAcknowledged("a")).toBe(false);
    tracker.sent("a", "queue");
    expect(tracker.isAwaiting("a")).toBe(true);
    expect(tracker.acknowledge("a")).toBe("first");
    expect(tracker.acknowledge("a")).toBe("duplicate");
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
