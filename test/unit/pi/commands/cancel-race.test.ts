import { describe, expect, it } from "vitest";
import { cancelCommand } from "../../../../src/pi/commands/task-commands.ts";
import { fakeCtx, fakeDeps, FakeLive, FakeSources, ID_A, recordingIo, snapshot } from "./fakes.ts";

/** A task whose run ended on its own a moment before the person's cancel: the registry refuses the cancel. */
class JustFinishedLive extends FakeLive {
  override cancelByUser(): boolean {
    return false;
  }
}

describe("/subagent-cancel racing the child's own end (issue 13 item 6)", () => {
  it("says the task already finished, never that it was cancelled", async () => {
    const sources = new FakeSources();
    sources.running_ = [snapshot(ID_A, { agent: "coder" })];
    const io = recordingIo("tui", "interactive");
    await cancelCommand(ID_A, fakeCtx() as never, fakeDeps(sources, io, new JustFinishedLive(sources)));
    expect(io.notices).toEqual([
      {
        text: `Task ${ID_A} already finished (its answer was complete before the cancel arrived). Its result: /subagent-result ${ID_A}`,
        level: "warning",
      },
    ]);
  });
});
