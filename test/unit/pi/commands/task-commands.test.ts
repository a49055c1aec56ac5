import { describe, expect, it } from "vitest";
import {
  CANCEL_PICKER_TITLE,
  cancelAllCommand,
  cancelCommand,
  RESULT_PICKER_TITLE,
  resultCommand,
  WATCH_PICKER_TITLE,
  watchCommand,
} from "../../../../src/pi/commands/task-commands.ts";
import { commandIo, surfaceOf } from "../../../../src/pi/commands/command-io.ts";
import { guarded, registerTaskCommands, registerWorktreesCommand } from "../../../../src/pi/commands/commands.ts";
import { FULL_SCREEN } from "../../../../src/pi/ui/views.ts";
import {
  fakeCtx,
  fakeDeps,
  FakeLive,
  FakeSources,
  ID_A,
  ID_B,
  ID_C,
  ID_OLD,
  KEY,
  record,
  recordingIo,
  snapshot,
} from "./fakes.ts";

function twoRunning() {
  const sources = new FakeSources();
  sources.running_ = [
    snapshot(ID_A, { agent: "coder", task: "Job A" }),
    snapshot(ID_C, { agent: "writer", task: "Job C" }),
  ];
  return { sources, live: new FakeLive(sources) };
}

const texts = (io: ReturnType<typeof recordingIo>) => io.notices.map((n) => n.text);

describe("/subagent-cancel", () => {
  it("cancels the task a unique prefix names, as a user cancel", async () => {
    const { sources, live } = twoRunning();
    const io = recordingIo("tui", "interactive");
    await cancelCommand("01912399", fakeCtx(), fakeDeps(sources, io, live));
    expect(live.cancelled).toEqual([ID_C]);
    expect(texts(io)).toEqual([
      `Cancelled subagent task ${ID_C} (writer); its cancelled result goes to the main agent.`,
    ]);
  });

  it("cancels a whole batch by the short id its group line in the widget shows", async () => {
    const batch = "01912345-6789-7abc-8def-00000000babe";
    const sources = new FakeSources();
    const partOf = (index: number) => ({ workflow: { id: batch, kind: "batch" as const, index, total: 2 } });
    sources.running_ = [
      snapshot(ID_A, { agent: "coder", ...partOf(1) }),
      snapshot(ID_B, { agent: "writer", ...partOf(2) }),
      snapshot(ID_C),
    ];
    const live = new FakeLive(sources);
    const io = recordingIo("tui", "interactive");
    await cancelCommand("00babe", fakeCtx(), fakeDeps(sources, io, live));
    expect(live.cancelled).toEqual([ID_A, ID_B]);
    expect(texts(io)).toEqual([
      `Cancelled 2 parts of batch ${batch}; its one result goes to the main agent once every part has ended.`,
    ]);
  });

  it("says so when the task is already being cancelled, without cancelling it again", async () => {
    const { sources, live } = twoRunning();
    sources.running_[0]!.cancelRequested = { by: "user" };
    const io = recordingIo("tui", "interactive");
    await cancelCommand(ID_A, fakeCtx(), fakeDeps(sources, io, live));
    expect(live.cancelled).toEqual([]);
    expect(texts(io)).toEqual([`Subagent task ${ID_A} (coder) is already being cancelled.`]);
  });

  it("answers a too short, unknown or finished id with a notice, cancelling nothing", async () => {
    const { sources, live } = twoRunning();
    sources.add(record(ID_OLD, { status: "failed" }));
    const io = recordingIo("tui", "interactive");
    const deps = fakeDeps(sources, io, live);
    await cancelCommand("019", fakeCtx(), deps);
    await cancelCommand("ffff1234", fakeCtx(), deps);
    await cancelCommand("01900000", fakeCtx(), deps);
    expect(live.cancelled).toEqual([]);
    expect(texts(io)).toEqual([
      'Task id "019" is too short: type at least 4 characters of the taskId.',
      `No running subagent task matches: ffff1234. Running subagent tasks: ${ID_A} (coder), ${ID_C} (writer). Use /subagent-cancel <taskId>.`,
      `Task ${ID_OLD} already finished (failed). Its result: /subagent-result ${ID_OLD}`,
    ]);
  });

  it("sends a task that runs in another pi there", async () => {
    const sources = new FakeSources();
    sources.bareFolders = [ID_C];
    sources.locked.add(ID_C);
    const io = recordingIo("tui", "interactive");
    await cancelCommand("01912399", fakeCtx(), fakeDeps(sources, io, new FakeLive(sources)));
    await watchCommand("01912399", fakeCtx(), fakeDeps(sources, io, new FakeLive(sources)));
    expect(texts(io)).toEqual([
      `Task ${ID_C} runs in another pi process; cancel it there.`,
      `Task ${ID_C} runs in another pi process; watch it there.`,
    ]);
  });

  it("without an id, shows a picker of the running tasks: Enter cancels the selected one", async () => {
    const { sources, live } = twoRunning();
    const io = recordingIo("tui", "interactive");
    const ctx = fakeCtx();
    const running = cancelCommand("", ctx, fakeDeps(sources, io, live));
    const picker = await ctx.waitForShown(1);
    expect(picker.screen()).toContain(CANCEL_PICKER_TITLE);
    expect(picker.screen()).toContain("→ coder · running 01:00 · Job A");
    expect(picker.screen()).toContain("  writer · running 01:00 · Job C");
    picker.press(KEY.down, KEY.enter);
    await running;
    expect(live.cancelled).toEqual([ID_C]);
    expect(picker.options).toBeUndefined();
  });

  it("without an id, Esc leaves the picker and nothing is cancelled", async () => {
    const { sources, live } = twoRunning();
    const io = recordingIo("tui", "interactive");
    const ctx = fakeCtx();
    const running = cancelCommand("  ", ctx, fakeDeps(sources, io, live));
    (await ctx.waitForShown(1)).press(KEY.escape);
    await running;
    expect(live.cancelled).toEqual([]);
    expect(io.notices).toEqual([]);
  });

  it("with an ambiguous prefix, lets the person pick among the matches", async () => {
    const sources = new FakeSources();
    sources.running_ = [snapshot(ID_A, { agent: "coder" }), snapshot(ID_B, { agent: "writer" }), snapshot(ID_C)];
    const live = new FakeLive(sources);
    const ctx = fakeCtx();
    const running = cancelCommand("01912345", ctx, fakeDeps(sources, recordingIo("tui", "interactive"), live));
    const picker = await ctx.waitForShown(1);
    expect(picker.screen(400)).toContain(
      `"01912345" matches 2 tasks: ${ID_A} (coder), ${ID_B} (writer). Type more of the taskId.`,
    );
    expect(picker.screen()).not.toContain("Job for 01");
    picker.press(KEY.down, KEY.enter);
    await running;
    expect(live.cancelled).toEqual([ID_B]);
  });

  it("without an id and nothing running, says none run", async () => {
    const io = recordingIo("tui", "interactive");
    const ctx = fakeCtx();
    await cancelCommand("", ctx, fakeDeps(new FakeSources(), io, undefined));
    expect(texts(io)).toEqual(["No running subagent tasks to cancel."]);
    expect(ctx.shown).toEqual([]);
  });

  it("outside the TUI says what it can and cannot do there, and touches nothing", async () => {
    const { sources, live } = twoRunning();
    for (const [surface, mode] of [
      ["stdio", "print"],
      ["stdio", "json"],
      ["rpc", "rpc"],
    ] as const) {
      const io = recordingIo(surface, mode);
      const ctx = fakeCtx();
      await cancelCommand("", ctx, fakeDeps(sources, io, live));
      await cancelCommand(ID_A, ctx, fakeDeps(sources, io, live));
      expect(texts(io)).toHaveLength(2);
      expect(texts(io)[0]).toContain(
        `/subagent-cancel stops background subagent tasks, which exist only in the interactive TUI; in ${mode} mode`,
      );
      expect(ctx.shown).toEqual([]);
      expect(io.failures).toBe(0);
    }
    expect(live.cancelled).toEqual([]);
  });
});

describe("/subagent-cancel-all", () => {
  it("cancels every running and queued task not already being cancelled, and counts them", async () => {
    const { sources, live } = twoRunning();
    sources.running_.push(
      snapshot(ID_B, { status: "queued", startedAt: undefined }),
      snapshot(ID_OLD, { cancelRequested: { by: "agent" } }),
    );
    const io = recordingIo("tui", "interactive");
    await cancelAllCommand("", fakeCtx(), fakeDeps(sources, io, live));
    expect(live.cancelled).toEqual([ID_A, ID_C, ID_B]);
    // Each record keeps the command, so its card says /subagent-cancel-all.
    expect(live.commands).toEqual(["/subagent-cancel-all", "/subagent-cancel-all", "/subagent-cancel-all"]);
    expect(texts(io)).toEqual(["Cancelled 3 running subagent task(s)."]);
    await cancelAllCommand("", fakeCtx(), fakeDeps(sources, io, live));
    expect(texts(io)[1]).toBe("No running subagent tasks to cancel.");
  });

  it("with nothing running (or no background tasks yet) says none run", async () => {
    const io = recordingIo("tui", "interactive");
    await cancelAllCommand("", fakeCtx(), fakeDeps(new FakeSources(), io, undefined));
    expect(texts(io)).toEqual(["No running subagent tasks to cancel."]);
  });

  it("outside the TUI says background tasks exist only there", async () => {
    const io = recordingIo("stdio", "print");
    await cancelAllCommand("", fakeCtx(), fakeDeps(new FakeSources(), io, undefined));
    expect(texts(io)[0]).toMatch(
      /^\/subagent-cancel-all stops background subagent tasks, which exist only in the interactive TUI; in print mode/,
    );
  });
});

describe("/subagent-result", () => {
  it("opens the full-screen viewer on a finished task's output", async () => {
    const sources = new FakeSources().add(record(ID_OLD, { output: "FULL OUTPUT" }));
    const io = recordingIo("tui", "interactive");
    const ctx = fakeCtx();
    const running = resultCommand("0190", ctx, fakeDeps(sources, io, undefined));
    const viewer = await ctx.waitForShown(1);
    expect(viewer.options).toEqual(FULL_SCREEN);
    expect(viewer.screen()).toContain(`Subagent result · ${ID_OLD}`);
    expect(viewer.screen()).toContain(" FULL OUTPUT");
    viewer.press("q");
    await running;
    expect(io.notices).toEqual([]);
  });

  it("gives the spec's notices for a running task, an unknown id and a task with no output", async () => {
    const sources = new FakeSources().add(record(ID_OLD, { output: "  ", status: "cancelled", cancelledBy: "none" }));
    sources.running_ = [snapshot(ID_A)];
    const io = recordingIo("tui", "interactive");
    const ctx = fakeCtx();
    const deps = fakeDeps(sources, io, undefined);
    await resultCommand(ID_A.slice(0, 16), ctx, deps);
    await resultCommand("ffff0000", ctx, deps);
    await resultCommand(ID_OLD, ctx, deps);
    expect(texts(io)).toEqual([
      "Task still running — view it after it finishes",
      "No task record for: ffff0000",
      `Task has no final output (session file: /agent/subagent-sessions/${ID_OLD}/session.jsonl)`,
    ]);
    expect(ctx.shown).toEqual([]);
  });

  it("without an id, browses the recent finished tasks newest first, back to the list after each", async () => {
    const sources = new FakeSources().add(
      record(ID_OLD, { agent: "writer", finishedAt: 5, output: "OLD OUTPUT", task: "Old job" }),
      record(ID_C, { agent: "coder", finishedAt: 9, output: "NEW OUTPUT", task: "New job", status: "failed" }),
    );
    const io = recordingIo("tui", "interactive");
    const ctx = fakeCtx();
    const running = resultCommand("", ctx, fakeDeps(sources, io, undefined));
    const picker = await ctx.waitForShown(1);
    expect(picker.screen()).toContain(RESULT_PICKER_TITLE);
    const rows = picker
      .screen()
      .split("\n")
      .filter((line) => line.includes(" job"));
    expect(rows.map((row) => row.trimEnd())).toEqual(["→ coder · failed · New job", "  writer · succeeded · Old job"]);
    picker.press(KEY.down, KEY.enter);
    const viewer = await ctx.waitForShown(2);
    expect(viewer.screen()).toContain("OLD OUTPUT");
    viewer.press(KEY.escape);
    const again = await ctx.waitForShown(3);
    expect(again.screen()).toContain("→ writer · succeeded · Old job");
    again.press(KEY.escape);
    await running;
  });

  it("q in a viewer opened from the picker closes both, back to the editor", async () => {
    const sources = new FakeSources().add(
      record(ID_OLD, { agent: "writer", finishedAt: 5, output: "OLD OUTPUT", task: "Old job" }),
    );
    const ctx = fakeCtx();
    const running = resultCommand("", ctx, fakeDeps(sources, recordingIo("tui", "interactive"), undefined));
    (await ctx.waitForShown(1)).press(KEY.enter);
    const viewer = await ctx.waitForShown(2);
    expect(viewer.screen()).toContain("Esc back to the list · q close");
    viewer.press("q");
    await running;
    expect(ctx.shown).toHaveLength(2);
  });

  it("in print mode writes the record and the output to stdout, and fails with status 1 when it cannot", async () => {
    const sources = new FakeSources().add(record(ID_OLD, { output: "THE OUTPUT" }), record(ID_C, { output: "" }));
    const io = recordingIo("stdio", "print");
    const deps = fakeDeps(sources, io, undefined);
    await resultCommand("01900000", fakeCtx(), deps);
    expect(io.out.join("")).toMatch(new RegExp(`^Task id: ${ID_OLD}\\n[\\s\\S]*\\n---\\nTHE OUTPUT\\n$`));
    expect(io.failures).toBe(0);
    await resultCommand("ffff0000", fakeCtx(), deps);
    expect(io.failures).toBe(1);
    await resultCommand(ID_C, fakeCtx(), deps);
    expect(io.failures).toBe(2);
    expect(io.out).toHaveLength(2);
    expect(texts(io)).toEqual([
      "No task record for: ffff0000",
      `Task has no final output (session file: /agent/subagent-sessions/${ID_C}/session.jsonl)`,
    ]);
  });

  it("in JSON mode writes one JSON line; without an id lists the recent tasks", async () => {
    const sources = new FakeSources().add(record(ID_OLD, { output: "THE OUTPUT" }));
    const io = recordingIo("stdio", "json");
    await resultCommand(ID_OLD, fakeCtx(), fakeDeps(sources, io, undefined));
    expect(JSON.parse(io.out[0]!)).toMatchObject({ type: "subagent_result", taskId: ID_OLD, output: "THE OUTPUT" });
    await resultCommand("", fakeCtx(), fakeDeps(sources, io, undefined));
    expect(JSON.parse(io.out[1]!)).toEqual({
      type: "subagent_results",
      tasks: [
        {
          taskId: ID_OLD,
          agent: "coder",
          status: "succeeded",
          finishedAt: 155_000,
          task: "Refactor the auth middleware.",
        },
      ],
    });
    expect(texts(io)).toEqual([
      "Usage: /subagent-result <taskId> (the short id the widget shows, or any unique start or end of 4+ characters, is enough)",
    ]);
  });

  it("under RPC sends the result to the client as a notice", async () => {
    const sources = new FakeSources().add(record(ID_OLD, { output: "THE OUTPUT" }));
    const io = recordingIo("rpc", "rpc");
    await resultCommand(ID_OLD, fakeCtx(), fakeDeps(sources, io, undefined));
    expect(texts(io)[0]).toMatch(/\n---\nTHE OUTPUT\n$/);
    expect(io.out).toEqual([]);
  });

  it("lists the matches of an ambiguous prefix outside the TUI", async () => {
    const sources = new FakeSources().add(record(ID_A, { agent: "coder" }), record(ID_B, { agent: "writer" }));
    const io = recordingIo("stdio", "print");
    await resultCommand("01912345", fakeCtx(), fakeDeps(sources, io, undefined));
    expect(texts(io)).toEqual([
      `"01912345" matches 2 tasks: ${ID_B} (writer), ${ID_A} (coder). Type more of the taskId.`,
    ]);
    expect(io.failures).toBe(1);
  });
});

describe("/subagent-watch", () => {
  it("shows the live view of the named task and stops following it when closed", async () => {
    const { sources, live } = twoRunning();
    sources.running_[0]!.state!.streamTail = "STREAMED SO FAR";
    const io = recordingIo("tui", "interactive");
    const ctx = fakeCtx();
    const running = watchCommand(ID_A.slice(0, 8) + "-6789", ctx, fakeDeps(sources, io, live));
    const view = await ctx.waitForShown(1);
    expect(view.options).toEqual(FULL_SCREEN);
    expect(view.screen()).toContain(`Watching subagent · ${ID_A}`);
    expect(view.screen()).toContain(" STREAMED SO FAR");
    expect(live.listenerCount).toBe(1);
    view.press(KEY.escape);
    await running;
    expect(live.listenerCount).toBe(0);
  });

  it("without an id, picks among the running tasks", async () => {
    const { sources, live } = twoRunning();
    const ctx = fakeCtx();
    const running = watchCommand("", ctx, fakeDeps(sources, recordingIo("tui", "interactive"), live));
    const picker = await ctx.waitForShown(1);
    expect(picker.screen()).toContain(WATCH_PICKER_TITLE);
    picker.press(KEY.down, KEY.enter);
    const view = await ctx.waitForShown(2);
    expect(view.screen()).toContain(`Watching subagent · ${ID_C}`);
    expect(view.screen()).toContain("Esc back to the list · q close");
    // Esc: back to the picker, on the same row.
    view.press(KEY.escape);
    const again = await ctx.waitForShown(3);
    expect(again.screen()).toContain(WATCH_PICKER_TITLE);
    again.press(KEY.enter);
    // q: the view and the picker close, so the next prompt lands in the editor.
    (await ctx.waitForShown(4)).press("q");
    await running;
    expect(ctx.shown).toHaveLength(4);
  });

  it("points a finished task to /subagent-result, and says when nothing runs", async () => {
    const sources = new FakeSources().add(record(ID_OLD));
    const io = recordingIo("tui", "interactive");
    await watchCommand("01900000", fakeCtx(), fakeDeps(sources, io, undefined));
    await watchCommand("", fakeCtx(), fakeDeps(sources, io, undefined));
    expect(texts(io)).toEqual([
      `Task ${ID_OLD} already finished (succeeded). Its result: /subagent-result ${ID_OLD}`,
      "No running subagent tasks to watch.",
    ]);
  });

  it("outside the TUI says it needs the TUI and points to /subagent-result", async () => {
    const io = recordingIo("stdio", "print");
    await watchCommand(ID_A, fakeCtx(), fakeDeps(new FakeSources(), io, undefined));
    expect(texts(io)).toEqual([
      "/subagent-watch is a live view of a background task and needs the interactive TUI; in print mode read a finished task with /subagent-result <taskId>.",
    ]);
  });
});

describe("wiring", () => {
  it("picks the surface from hasUI and the mode", () => {
    expect(surfaceOf(true, "interactive")).toBe("tui");
    expect(surfaceOf(true, "rpc")).toBe("rpc");
    expect(surfaceOf(false, "print")).toBe("stdio");
    expect(surfaceOf(false, "json")).toBe("stdio");
  });

  it("sends notices to stderr outside the TUI and to notify in it, and sets exit status 1 only outside it", () => {
    const stderr: string[] = [];
    const notified: string[] = [];
    const codes: number[] = [];
    const ui = { notify: (text: string) => void notified.push(text) } as never;
    const print = commandIo(
      { hasUI: false, ui },
      { mode: () => "print", stderr: (t) => void stderr.push(t), setExitCode: (c) => void codes.push(c) },
    );
    print.notice("to stderr");
    print.failed();
    const tui = commandIo({ hasUI: true, ui }, { mode: () => "interactive", setExitCode: (c) => void codes.push(c) });
    tui.notice("to notify");
    tui.failed();
    expect(stderr).toEqual(["to stderr\n"]);
    expect(notified).toEqual(["to notify"]);
    expect(codes).toEqual([1]);
  });

  it("turns a failing handler into a notice instead of an exception", async () => {
    const io = recordingIo("stdio", "print");
    const handler = guarded(
      "subagent-result",
      async () => {
        throw new Error("disk on fire");
      },
      fakeDeps(new FakeSources(), io, undefined),
    );
    await expect(handler("x", fakeCtx())).resolves.toBeUndefined();
    expect(texts(io)).toEqual(["/subagent-result failed: disk on fire"]);
    expect(io.failures).toBe(1);
  });

  it("/subagent-worktrees runs its body (imported on the first run) and reports a failure as a notice", async () => {
    const commands = new Map<
      string,
      { handler: (args: string, ctx: unknown) => Promise<void>; description?: string }
    >();
    const pi = { registerCommand: (name: string, options: never) => void commands.set(name, options) } as never;
    const io = recordingIo("stdio", "print");
    let agentDirCalls = 0;
    registerWorktreesCommand(pi, {
      agentDir: () => {
        agentDirCalls++;
        throw new Error("no agent dir");
      },
      io: () => io,
    });
    expect([...commands.keys()]).toEqual(["subagent-worktrees"]);
    expect(commands.get("subagent-worktrees")!.description).toMatch(/worktree/i);
    await expect(
      commands.get("subagent-worktrees")!.handler("", { cwd: process.cwd(), hasUI: false }),
    ).resolves.toBeUndefined();
    expect(agentDirCalls).toBe(1);
    expect(texts(io)).toEqual(["/subagent-worktrees failed: no agent dir"]);
    expect(io.failures).toBe(1);
  });

  it("registers the five commands, completing ids for cancel, message, watch and result", async () => {
    const commands = new Map<
      string,
      { getArgumentCompletions?: (p: string) => unknown; handler: unknown; description?: string }
    >();
    const pi = { registerCommand: (name: string, options: never) => void commands.set(name, options) } as never;
    const { sources, live } = twoRunning();
    sources.add(record(ID_OLD, { agent: "tester" }));
    const handle = { tasks: () => undefined, existing: () => undefined, onCreated: () => undefined } as never;
    registerTaskCommands(pi, handle, fakeDeps(sources, recordingIo("tui", "interactive"), live));
    expect([...commands.keys()]).toEqual([
      "subagent-cancel",
      "subagent-cancel-all",
      "subagent-message",
      "subagent-result",
      "subagent-watch",
    ]);
    const labels = (name: string, typed: string) =>
      (commands.get(name)!.getArgumentCompletions!(typed) as Array<{ label: string }> | null)?.map((i) => i.label) ??
      null;
    expect(labels("subagent-cancel", "")).toEqual(["01912345…456789ab coder", "01912399…00000001 writer"]);
    expect(labels("subagent-watch", "019123")).toEqual(["01912345…456789ab coder", "01912399…00000001 writer"]);
    expect(labels("subagent-result", "0190")).toEqual(["01900000…000000ff tester"]);
    expect(labels("subagent-cancel", "0190")).toBeNull();
    expect(commands.get("subagent-cancel-all")!.getArgumentCompletions).toBeUndefined();
    // /subagent-message completes the id only; once the text starts there is nothing to complete.
    expect(labels("subagent-message", "019123")).toEqual(["01912345…456789ab coder", "01912399…00000001 writer"]);
    expect(labels("subagent-message", "01912345-6789-7abc-0000-000000000000 hello")).toBeNull();
  });
});
