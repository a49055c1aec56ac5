import { describe, expect, it, vi } from "vitest";
import {
  finishedTaskItems,
  namedTaskItems,
  PICKER_HINT,
  PICKER_REFRESH_MS,
  runningTaskItems,
  TaskPicker,
} from "../../../../src/pi/ui/views.ts";
import { ID_A, ID_B, ID_C, KEY, plainTheme, record, snapshot } from "../commands/fakes.ts";

describe("picker rows", () => {
  it("show a running task's agent, state and elapsed time, and its task on one line", () => {
    const items = runningTaskItems(
      [
        snapshot(ID_A, { agent: "coder", task: "Fix the\nflaky test", startedAt: 1_000 }),
        snapshot(ID_B, { agent: "writer", status: "queued", startedAt: undefined, task: "Docs" }),
        snapshot(ID_C, { agent: "coder", cancelRequested: { by: "user" }, task: "Gone" }),
      ],
      84_000,
    );
    expect(items).toEqual([
      { value: ID_A, label: "coder · running 01:23 · Fix the flaky test" },
      { value: ID_B, label: "writer · queued · Docs" },
      { value: ID_C, label: "coder · cancelling · Gone" },
    ]);
  });

  it("show a finished task's agent, status and task, in the order given", () => {
    const items = finishedTaskItems([
      record(ID_C),
      record(ID_A, { agent: "writer", status: "cancelled", cancelledBy: "user", task: "Long " + "x".repeat(300) }),
    ]);
    expect(items[0]).toEqual({ value: ID_C, label: "coder · succeeded · Refactor the auth middleware." });
    expect(items[1]!.label.startsWith("writer · cancelled by user · Long xxx")).toBe(true);
    expect(items[1]!.label.endsWith("…")).toBe(true);
  });

  it("show the id (and agent when known) of an ambiguous prefix's matches", () => {
    expect(namedTaskItems([{ taskId: ID_A, agent: "coder" }, { taskId: ID_B }])).toEqual([
      { value: ID_A, label: `${ID_A} · coder` },
      { value: ID_B, label: ID_B },
    ]);
  });
});

describe("the picker component", () => {
  function picker(initialTaskId?: string) {
    const events: string[] = [];
    let renders = 0;
    const component = new TaskPicker({
      title: "Cancel a subagent task",
      items: runningTaskItems(
        [snapshot(ID_A, { agent: "coder" }), snapshot(ID_B, { agent: "writer" }), snapshot(ID_C, { agent: "tester" })],
        1_000,
      ),
      theme: plainTheme,
      initialTaskId,
      onPick: (id) => events.push(`pick ${id}`),
      onCancel: () => events.push("cancel"),
      requestRender: () => void renders++,
    });
    return { component, events, renders: () => renders };
  }

  it("renders the title, one row per task with the first selected, and the key hint", () => {
    const { component } = picker();
    const lines = component.render(80).map((line) => line.trimEnd());
    expect(lines[1]).toBe(" Cancel a subagent task");
    expect(lines[2]).toBe("→ coder · running 00:00 · Job for ab");
    expect(lines[3]).toBe("  writer · running 00:00 · Job for cd");
    expect(lines).toContain(` ${PICKER_HINT}`);
    for (const line of component.render(80)) expect(line.length).toBeLessThanOrEqual(80);
  });

  it("moves with the arrow keys (wrapping) and picks with Enter", () => {
    const { component, events, renders } = picker();
    component.handleInput(KEY.down);
    component.handleInput(KEY.down);
    expect(component.selectedTaskId()).toBe(ID_C);
    component.handleInput(KEY.down);
    expect(component.selectedTaskId()).toBe(ID_A);
    component.handleInput(KEY.up);
    expect(component.render(80)[4]!.trimEnd()).toBe("→ tester · running 00:00 · Job for 01");
    component.handleInput(KEY.enter);
    expect(events).toEqual([`pick ${ID_C}`]);
    expect(renders()).toBe(5);
  });

  it("leaves with Esc without picking", () => {
    const { component, events } = picker();
    component.handleInput(KEY.escape);
    expect(events).toEqual(["cancel"]);
  });

  it("opens on the row it was left at", () => {
    const { component, events } = picker(ID_B);
    component.handleInput(KEY.enter);
    expect(events).toEqual([`pick ${ID_B}`]);
  });
});

describe("the clocks of a picker of running tasks", () => {
  it("move about once a second while it is open, the selection staying put, and stop when it closes", () => {
    vi.useFakeTimers();
    try {
      let now = 61_000;
      const running = [
        snapshot(ID_A, { agent: "coder", startedAt: 1_000 }),
        snapshot(ID_B, { agent: "writer", startedAt: 1_000 }),
      ];
      const picked: string[] = [];
      const picker = new TaskPicker({
        title: "Cancel a subagent task",
        items: runningTaskItems(running, now),
        theme: plainTheme,
        onPick: (id) => picked.push(id),
        onCancel: () => undefined,
        refreshItems: () => runningTaskItems(running, now),
      });
      picker.handleInput(KEY.down);
      expect(picker.render(100).join("\n")).toContain("writer · running 01:00");
      now += 5_000;
      vi.advanceTimersByTime(PICKER_REFRESH_MS);
      const screen = picker.render(100).join("\n");
      expect(screen).toContain("coder · running 01:05");
      expect(screen).toContain("→ writer · running 01:05");
      picker.handleInput(KEY.enter);
      expect(picked).toEqual([ID_B]);
      // Closed: no more refreshes.
      now += 5_000;
      vi.advanceTimersByTime(5 * PICKER_REFRESH_MS);
      expect(picker.render(100).join("\n")).toContain("writer · running 01:05");
    } finally {
      vi.useRealTimers();
    }
  });
});
