import type { Component } from "@mariozechner/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Counts } from "../../../../src/tasks/background-tasks.ts";
import type { TaskSnapshot } from "../../../../src/tasks/registry.ts";
import {
  ProgressController,
  WIDGET_KEY,
  STATUS_KEY,
  type ProgressUi,
  type TaskSource,
} from "../../../../src/pi/ui/progress.ts";
import { plain, plainLines, runningTask } from "./helpers.ts";

class FakeTasks implements TaskSource {
  tasks: TaskSnapshot[] = [];
  done = 0;
  private readonly listeners = new Set<() => void>();
  snapshot(): TaskSnapshot[] {
    return [...this.tasks];
  }
  counts(): Counts {
    const running = this.tasks.filter((task) => task.status === "running").length;
    return { running, queued: this.tasks.length - running, done: this.done };
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
  emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** Records what the controller does to pi's UI, and builds the widget as pi would (calling the factory). */
class FakeUi {
  widgetCalls: Array<"set" | "removed"> = [];
  widget: Component | undefined;
  statuses: Array<string | undefined> = [];
  renders = 0;
  throwing = false;
  readonly ui: ProgressUi;
  constructor() {
    const tui = { requestRender: () => void (this.renders += 1) };
    this.ui = {
      theme: plain,
      setWidget: (key: string, content: unknown) => {
        if (this.throwing) throw new Error("This extension ctx is stale");
        expect(key).toBe(WIDGET_KEY);
        if (content === undefined) {
          this.widget = undefined;
          this.widgetCalls.push("removed");
          return;
        }
        this.widget = (content as (tui: unknown, theme: unknown) => Component)(tui, plain);
        this.widgetCalls.push("set");
      },
      setStatus: (key: string, text: string | undefined) => {
        if (this.throwing) throw new Error("This extension ctx is stale");
        expect(key).toBe(STATUS_KEY);
        this.statuses.push(text);
      },
    } as unknown as ProgressUi;
  }
  screen(width = 80): string[] {
    return this.widget ? plainLines(this.widget.render(width)) : [];
  }
}

let tasks: FakeTasks;
let fakeUi: FakeUi;
let ui: ProgressUi | undefined;
let controller: ProgressController;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  tasks = new FakeTasks();
  fakeUi = new FakeUi();
  ui = fakeUi.ui;
  controller = new ProgressController(tasks, () => ui);
});

afterEach(() => {
  controller.dispose();
  vi.useRealTimers();
});

describe("ProgressController", () => {
  it("shows nothing and runs no timer while no task exists", () => {
    controller.start();
    expect(fakeUi.widgetCalls).toEqual([]);
    expect(fakeUi.statuses).toEqual([]);
    expect(controller.ticking).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("sets the widget once when a task appears, redraws it every second, and the clock advances", () => {
    controller.start();
    const task = runningTask({ agent: "coder", dispatchedAt: Date.now() });
    tasks.tasks = [task];
    tasks.emit();
    expect(fakeUi.widgetCalls).toEqual(["set"]);
    expect(fakeUi.statuses).toEqual(["⚙ 1 running · 0 done"]);
    expect(controller.ticking).toBe(true);
    expect(fakeUi.screen()[0]).toMatch(/^── Subagents · 1 running ─+$/);
    expect(fakeUi.screen()[1]).toMatch(/coder +thinking +00:00$/);

    vi.advanceTimersByTime(3_000);
    expect(fakeUi.renders).toBe(3);
    expect(fakeUi.widgetCalls).toEqual(["set"]);
    expect(fakeUi.screen()[1]).toMatch(/00:03$/);
    // The status is only set again when its text changes.
    expect(fakeUi.statuses).toEqual(["⚙ 1 running · 0 done"]);
  });

  it("removes the widget and stops the timer when the last task ends, keeping the done count in the footer", () => {
    controller.start();
    tasks.tasks = [runningTask(), runningTask()];
    tasks.emit();
    vi.advanceTimersByTime(1_000);
    tasks.tasks = [tasks.tasks[1]!];
    tasks.done = 1;
    tasks.emit();
    expect(fakeUi.widgetCalls).toEqual(["set"]);
    tasks.tasks = [];
    tasks.done = 2;
    vi.advanceTimersByTime(300);
    tasks.emit();
    expect(fakeUi.widgetCalls).toEqual(["set", "removed"]);
    expect(controller.ticking).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    expect(fakeUi.statuses.at(-1)).toBe("⚙ 0 running · 2 done");
  });

  it("redraws at most every 250 ms however often a chatty child reports", () => {
    controller = new ProgressController(tasks, () => ui, { tickMs: 60_000 });
    controller.start();
    tasks.tasks = [runningTask()];
    tasks.emit();
    vi.advanceTimersByTime(1_000);
    const before = fakeUi.renders;
    for (let i = 0; i < 100; i++) {
      tasks.emit();
      vi.advanceTimersByTime(10);
    }
    // 1 s of events, 100 of them: about four redraws, never one per event.
    const redraws = fakeUi.renders - before;
    expect(redraws).toBeGreaterThanOrEqual(3);
    expect(redraws).toBeLessThanOrEqual(5);
    // A change right after a redraw is not lost: it is drawn when the 250 ms are up.
    vi.advanceTimersByTime(1_000);
    const settled = fakeUi.renders;
    tasks.emit();
    expect(fakeUi.renders).toBe(settled + 1);
    tasks.emit();
    expect(fakeUi.renders).toBe(settled + 1);
    vi.advanceTimersByTime(249);
    expect(fakeUi.renders).toBe(settled + 1);
    vi.advanceTimersByTime(1);
    expect(fakeUi.renders).toBe(settled + 2);
    expect(vi.getTimerCount()).toBe(1); // only the (idle) 1-minute ticker is left
  });

  it("does nothing without a UI (print and JSON mode), and no timer runs", () => {
    ui = undefined;
    controller.start();
    tasks.tasks = [runningTask()];
    tasks.emit();
    vi.advanceTimersByTime(5_000);
    expect(fakeUi.widgetCalls).toEqual([]);
    expect(fakeUi.statuses).toEqual([]);
    expect(controller.ticking).toBe(false);
  });

  it("shows what is running once a UI arrives (session_start after the first dispatch)", () => {
    ui = undefined;
    controller.start();
    tasks.tasks = [runningTask()];
    tasks.emit();
    ui = fakeUi.ui;
    controller.refresh();
    expect(fakeUi.widgetCalls).toEqual(["set"]);
    expect(controller.ticking).toBe(true);
  });

  it("detach clears the widget and the footer segment and stops the timer", () => {
    controller.start();
    tasks.tasks = [runningTask()];
    tasks.emit();
    controller.detach();
    ui = undefined;
    expect(fakeUi.widgetCalls).toEqual(["set", "removed"]);
    expect(fakeUi.statuses).toEqual(["⚙ 1 running · 0 done", undefined]);
    expect(controller.ticking).toBe(false);
    tasks.emit();
    vi.advanceTimersByTime(2_000);
    expect(fakeUi.widgetCalls).toEqual(["set", "removed"]);
  });

  it("survives a UI that throws (a context pi replaced) and stops following after dispose", () => {
    controller.start();
    fakeUi.throwing = true;
    tasks.tasks = [runningTask()];
    expect(() => tasks.emit()).not.toThrow();
    controller.dispose();
    expect(tasks.listenerCount).toBe(0);
    expect(controller.ticking).toBe(false);
  });
});
