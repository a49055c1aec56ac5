import { describe, expect, it } from "vitest";
import { markedMessage, isSteerTakenIn, SteerBatch } from "../../../src/run/rpc.ts";

function batch() {
  const sent: string[] = [];
  let open = true;
  const steers = new SteerBatch((text) => {
    if (!open) return false;
    sent.push(text);
    return true;
  });
  return { steers, sent, close: () => (open = false) };
}

describe("SteerBatch", () => {
  it("sends the first message at once and the ones that arrive while it waits as one steer, in order", () => {
    const { steers, sent } = batch();
    for (let i = 1; i <= 200; i++) expect(steers.offer(`m${i}`)).toBe(true);
    expect(sent).toEqual(["m1"]);
    expect(steers.heldCount).toBe(199);
    steers.takenIn();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.split("\n\n")).toEqual(Array.from({ length: 199 }, (_, i) => `m${i + 2}`));
    steers.takenIn();
    expect(steers.offer("late")).toBe(true);
    expect(sent.at(-1)).toBe("late");
  });

  it("reports a steer still waiting when the run ends, once", () => {
    const { steers } = batch();
    expect(steers.takeStranded()).toBe(false);
    steers.offer("m1");
    expect(steers.takeStranded()).toBe(true);
    expect(steers.takeStranded()).toBe(false);
  });

  it("refuses a message when the child's input is closed", () => {
    const { steers, close } = batch();
    close();
    expect(steers.offer("m1")).toBe(false);
  });

  it("recognises the child taking in a steer (its user message), not the task's own prompt", () => {
    const steer = JSON.stringify({
      type: "message_end",
      message: { role: "user", content: [{ type: "text", text: markedMessage("hi", "agent") }], timestamp: 1 },
    });
    const queued = JSON.stringify({
      type: "message_end",
      message: {
        role: "user",
        content: [{ type: "text", text: `Task: x\n\n${markedMessage("hi", "agent", "queued")}` }],
      },
    });
    expect(isSteerTakenIn(steer)).toBe(true);
    expect(isSteerTakenIn(queued)).toBe(false);
  });
});
