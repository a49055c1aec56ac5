import { describe, expect, it } from "vitest";
import { messageCommand, splitIdAndText } from "../../../../src/pi/commands/task-commands.ts";
import type { MessageOutcome } from "../../../../src/tasks/registry.ts";
import {
  fakeCtx,
  fakeDeps,
  FakeLive,
  FakeSources,
  ID_A,
  ID_C,
  ID_OLD,
  record,
  recordingIo,
  snapshot,
} from "./fakes.ts";

/** Live tasks that answer messages with a scripted outcome and remember what was sent. */
class MessagingLive extends FakeLive {
  readonly sent: Array<{ taskId: string; text: string }> = [];
  outcome: MessageOutcome = "steered";
  messageByUser(taskId: string, text: string): MessageOutcome {
    if (this.outcome === "steered" || this.outcome === "queued") this.sent.push({ taskId, text });
    return this.outcome;
  }
}

function setUp() {
  const sources = new FakeSources();
  sources.running_ = [
    snapshot(ID_A, { agent: "coder", task: "Job A" }),
    snapshot(ID_C, { agent: "writer", task: "Job C" }),
  ];
  const live = new MessagingLive(sources);
  const io = recordingIo("tui", "interactive");
  return { sources, live, io, deps: fakeDeps(sources, io, live) };
}

describe("splitIdAndText", () => {
  it("takes the first word as the id and keeps the rest whole", () => {
    expect(splitIdAndText("  0191234 use  two  spaces ")).toEqual({ id: "0191234", text: "use  two  spaces" });
    expect(splitIdAndText("0191234")).toEqual({ id: "0191234", text: "" });
    expect(splitIdAndText("")).toEqual({ id: "", text: "" });
  });
});

describe("/subagent-message", () => {
  it("sends the text to the task a 13-character prefix names, and says so", async () => {
    const { live, io, deps } = setUp();
    await messageCommand(`${ID_A.slice(0, 13)} Use metric units.`, fakeCtx() as never, deps);
    expect(live.sent).toEqual([{ taskId: ID_A, text: "Use metric units." }]);
    expect(io.notices).toEqual([
      { text: `Message sent to subagent task ${ID_A} (coder); it reads it before its next step.`, level: "info" },
    ]);
  });

  it("says when the message waits with a queued task", async () => {
    const { live, io, deps } = setUp();
    live.outcome = "queued";
    await messageCommand(`${ID_C} Start with the tests.`, fakeCtx() as never, deps);
    expect(io.notices[0]!.text).toBe(
      `Message added to queued subagent task ${ID_C} (writer); it reads it with its task when it starts.`,
    );
  });

  it("refuses a finished task, pointing at its result, and an id nothing matches", async () => {
    const { sources, live, io, deps } = setUp();
    sources.add(record(ID_OLD, { status: "succeeded" }));
    await messageCommand(`${ID_OLD} too late`, fakeCtx() as never, deps);
    await messageCommand("deadbeef hello", fakeCtx() as never, deps);
    expect(live.sent).toEqual([]);
    expect(io.notices.map((n) => n.text)).toEqual([
      `Task ${ID_OLD} already finished (succeeded). Its result: /subagent-result ${ID_OLD}`,
      expect.stringMatching(/^No running subagent task matches: deadbeef/),
    ]);
  });

  it("refuses a NUL, and a task whose run just ended", async () => {
    const { live, io, deps } = setUp();
    await messageCommand(`${ID_A} a\0b`, fakeCtx() as never, deps);
    live.outcome = "finished";
    await messageCommand(`${ID_A} hello`, fakeCtx() as never, deps);
    expect(io.notices.map((n) => n.text)).toEqual([
      expect.stringMatching(/^The message contains a NUL character/),
      `Subagent task ${ID_A} (coder) has already finished (or is being stopped); the message was not sent. Its result: /subagent-result ${ID_A}`,
    ]);
  });

  it("explains itself outside the TUI", async () => {
    const sources = new FakeSources();
    const io = recordingIo("stdio", "print");
    await messageCommand(`${ID_A} hi`, fakeCtx() as never, fakeDeps(sources, io, undefined));
    expect(io.notices[0]!.text).toMatch(
      /^\/subagent-message sends a message to a background subagent task, which exist only in the interactive TUI; in print mode/,
    );
  });
});
