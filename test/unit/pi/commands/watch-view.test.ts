import { visibleWidth } from "@mariozechner/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { followTask } from "../../../../src/pi/commands/task-commands.ts";
import {
  activityText,
  frameOf,
  plainStreamText,
  WATCH_LIVE_HINT,
  WatchView,
  watchStatusLine,
} from "../../../../src/pi/ui/views.ts";
import { FakeLive, FakeSources, ID_A, KEY, plainTheme, snapshot } from "./fakes.ts";

function runningTask(streamTail: string) {
  const task = snapshot(ID_A, { agent: "coder", task: "Fix the flaky test", startedAt: 10_000, dispatchedAt: 9_000 });
  const state = task.state!;
  state.phase = "tool";
  state.currentTool = { name: "bash", summary: "npm test", at: 12_000 };
  state.usage = { ...state.usage, turns: 2, input: 1200, output: 300, cost: 0.0012 };
  state.streamTail = streamTail;
  state.activity = [
    { at: 11_000, kind: "text", text: "Looking at the test." },
    { at: 12_000, kind: "tool", text: "read: test/flaky.test.ts" },
    { at: 15_000, kind: "tool", text: "bash: npm test" },
    { at: 16_000, kind: "tool-result", text: "bash failed" },
  ];
  return task;
}

describe("the watch view's parts", () => {
  it("copies what it shows, so later changes to the run state do not leak in", () => {
    const task = runningTask("Hello");
    const frame = frameOf(task, 73_000);
    task.state!.streamTail = "changed";
    task.state!.activity.push({ at: 1, kind: "tool", text: "later" });
    task.state!.usage.turns = 99;
    expect(frame.streamTail).toBe("Hello");
    expect(frame.activity).toHaveLength(4);
    expect(frame.usage?.turns).toBe(2);
  });

  it("has a status line with agent, state, tool, elapsed time and usage", () => {
    expect(watchStatusLine(frameOf(runningTask(""), 73_000))).toBe(
      "coder · running · tool bash · 01:03 · 2 turns/↑1.2k/↓300/$0.0012",
    );
    const budgeted = { ...runningTask(""), budget: { maxTurns: 8, maxCost: 1 } };
    expect(watchStatusLine(frameOf(budgeted, 73_000))).toBe(
      "coder · running · tool bash · 01:03 · 2 turns/↑1.2k/↓300/$0.0012 · budget turn 2/8 · $0.0012/$1.00",
    );
    expect(watchStatusLine(frameOf({ ...runningTask(""), sandbox: "read-only" }, 73_000))).toBe(
      "coder · running · tool bash · 01:03 · 2 turns/↑1.2k/↓300/$0.0012 · sandbox: read-only",
    );
    const queued = frameOf(
      snapshot(ID_A, { status: "queued", startedAt: undefined, state: undefined, dispatchedAt: 0 }),
      5_000,
    );
    expect(watchStatusLine(queued)).toBe("worker · queued · 00:05");
    const cancelling = frameOf(
      snapshot(ID_A, { cancelRequested: { by: "user" }, dispatchedAt: 0, startedAt: 0 }),
      1_000,
    );
    expect(watchStatusLine(cancelling)).toMatch(/^worker · cancelling · 00:01/);
  });

  it("times activity from the run's start", () => {
    expect(activityText({ at: 75_000, kind: "tool", text: "bash: npm test" }, 10_000)).toBe("+01:05 ▸ bash: npm test");
  });

  it("drops terminal control sequences from streamed text", () => {
    expect(plainStreamText("a\x1b[31mred\x1b[0m\tb\x07\x1b]8;;http://x\x07link\x1b]8;;\x07")).toBe("ared  blink");
  });
});

describe("the watch view", () => {
  it("fills the screen with the task, its tool calls and the end of its streamed text", () => {
    const tail = Array.from({ length: 40 }, (_, i) => `streamed line ${i + 1}`).join("\n");
    let closed = 0;
    const view = new WatchView({
      frame: frameOf(runningTask(tail), 73_000),
      theme: plainTheme,
      rows: () => 24,
      onClose: () => void closed++,
    });
    const lines = view.render(80).map((line) => line.trimEnd());
    expect(lines).toHaveLength(24);
    expect(lines[0]).toBe(` Watching subagent · ${ID_A}`);
    expect(lines[1]).toBe(" coder · running · tool bash · 01:03 · 2 turns/↑1.2k/↓300/$0.0012");
    expect(lines[2]).toBe(" Task: Fix the flaky test");
    expect(lines[3]).toMatch(/^── Activity ─+$/);
    // Tool calls and failures; the text lines are in the streamed text below.
    expect(lines.slice(4, 7)).toEqual([
      " +00:02 ▸ read: test/flaky.test.ts",
      " +00:05 ▸ bash: npm test",
      " +00:06 ✗ bash failed",
    ]);
    expect(lines[7]).toMatch(/^── Streamed text ─+$/);
    // The end of the text, as much as fits.
    expect(lines[21]).toBe(" streamed line 40");
    expect(lines[8]).toBe(" streamed line 27");
    expect(lines[23]).toBe(` ${WATCH_LIVE_HINT}`);
    for (const line of view.render(80)) expect(visibleWidth(line)).toBeLessThanOrEqual(80);
    view.handleInput("x");
    expect(closed).toBe(0);
    view.handleInput("q");
    view.handleInput(KEY.escape);
    expect(closed).toBe(1);
  });

  it("shows the question a task waits on under its task line, and still fills the screen exactly", () => {
    const question = "explore 01a2b3c4 asks: ⚠️ Dangerous command: rm -rf build Allow?";
    const view = new WatchView({
      frame: frameOf(snapshot(ID_A, { question }), 1_000),
      theme: plainTheme,
      rows: () => 12,
      onClose: () => undefined,
    });
    const lines = view.render(100);
    expect(lines[3]).toBe(` ? ${question} · /subagent-answer`);
    expect(lines).toHaveLength(12);
  });

  it("says when nothing happened yet", () => {
    const view = new WatchView({
      frame: frameOf(snapshot(ID_A), 1_000),
      theme: plainTheme,
      rows: () => 12,
      onClose: () => undefined,
    });
    const screen = view.render(80).join("\n");
    expect(screen).toContain(" (no tool calls yet)");
    expect(screen).toContain(" (no text yet)");
  });

  it("stops changing when the task ends and pins the line pointing to its result", () => {
    const view = new WatchView({
      frame: frameOf(runningTask("first"), 20_000),
      theme: plainTheme,
      rows: () => 12,
      onClose: () => undefined,
    });
    view.end("succeeded");
    view.update(frameOf(runningTask("second"), 30_000));
    const lines = view.render(100).map((line) => line.trimEnd());
    expect(view.ended).toBe(true);
    expect(lines.join("\n")).toContain(" first");
    expect(lines.join("\n")).not.toContain("second");
    expect(lines.at(-2)).toMatch(/^── q\/Esc close ─+$/);
    expect(lines.at(-1)).toBe(` Task ended (succeeded). Full result: /subagent-result ${ID_A}`);
  });
});

describe("following a watched task", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("takes a fresh copy once a second, and on the task's end pins the line at once and stops", () => {
    const sources = new FakeSources();
    const task = runningTask("one");
    sources.running_ = [task];
    const live = new FakeLive(sources);
    const view = new WatchView({
      frame: frameOf(task, 0),
      theme: plainTheme,
      rows: () => 14,
      onClose: () => undefined,
    });
    let renders = 0;
    const stop = followTask(ID_A, view, live, { now: () => 20_000, sources }, () => void renders++);

    task.state!.streamTail = "one two";
    // Change events while it runs do not redraw: the once-a-second timer does.
    live.changed();
    expect(renders).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(renders).toBe(1);
    expect(view.render(80).join("\n")).toContain(" one two");

    live.finish(ID_A, { status: "cancelled", cancelledBy: "user" });
    expect(renders).toBe(2);
    expect(view.render(100).at(-1)!.trimEnd()).toBe(
      ` Task ended (cancelled by user). Full result: /subagent-result ${ID_A}`,
    );
    expect(live.listenerCount).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(renders).toBe(2);
    stop();
  });

  it("stops when the view is closed", () => {
    const sources = new FakeSources();
    sources.running_ = [runningTask("x")];
    const live = new FakeLive(sources);
    const view = new WatchView({
      frame: frameOf(sources.running_[0]!, 0),
      theme: plainTheme,
      rows: () => 14,
      onClose: () => undefined,
    });
    let renders = 0;
    const stop = followTask(ID_A, view, live, { now: () => 0, sources }, () => void renders++);
    stop();
    vi.advanceTimersByTime(3000);
    expect(renders).toBe(0);
    expect(live.listenerCount).toBe(0);
  });
});
