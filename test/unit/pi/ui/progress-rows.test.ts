import { visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { taskActivity, widgetLines, widgetRows, widgetTitle, WIDGET_MAX_ROWS } from "../../../../src/pi/ui/progress.ts";
import { shortTaskIds } from "../../../../src/shared/text.ts";
import { darkTheme, plain, plainLines, queuedTask, runningTask, runState } from "./helpers.ts";

const MINUTE = 60_000;

describe("widgetTitle", () => {
  it("counts running tasks, and queued ones only when something waits", () => {
    expect(widgetTitle({ running: 2, queued: 0 })).toBe("Subagents · 2 running");
    expect(widgetTitle({ running: 2, queued: 1 })).toBe("Subagents · 2 running · 1 queued");
  });
});

describe("taskActivity", () => {
  it("puts use against the task's budget first, so a narrow row keeps it", () => {
    const state = runState({
      usage: { turns: 3, input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, cost: 0.41, contextTokens: 0 },
    });
    expect(taskActivity(runningTask({ state, budget: { maxTurns: 8, maxCost: 1 } }), 0)).toBe(
      "turn 3/8 · $0.41/$1.00 · thinking",
    );
  });

  it("says what a running task does: its phase, with the latest tool once it is past it", () => {
    const tool = { name: "bash", summary: "npm test", at: 0 };
    expect(
      taskActivity(runningTask({ state: runState({ phase: "tool", currentTool: tool, lastTool: tool }) }), 0),
    ).toBe("⚡ bash: npm test");
    expect(taskActivity(runningTask({ state: runState({ phase: "thinking", lastTool: tool }) }), 0)).toBe(
      "thinking · last tool bash: npm test",
    );
    expect(taskActivity(runningTask({ state: runState({ phase: "writing" }) }), 0)).toBe("writing");
    expect(taskActivity(runningTask({ state: runState({ phase: "retrying", retryAttempts: 2 }) }), 0)).toBe(
      "retrying (2)",
    );
    expect(taskActivity(runningTask({ state: undefined }), 0)).toBe("starting");
  });

  it("shows a queued task's place in line, and a task being cancelled as such", () => {
    expect(taskActivity(queuedTask(), 2)).toBe("queued (#2 in line)");
    expect(taskActivity(runningTask({ cancelRequested: { by: "user" } }), 0)).toBe("cancelling…");
  });
});

describe("shortTaskIds", () => {
  it("keeps the last 8 characters (random in a UUID v7), longer only where two ids still end alike", () => {
    const ids = [
      "01912345-6789-7abc-8def-0123456789ab",
      "01912345-6789-7abc-8def-1a23456789ab",
      "01912345-6789-7abc-8def-0123f1e2d3c4",
    ];
    expect(shortTaskIds(ids)).toEqual(["123456789ab", "a23456789ab", "f1e2d3c4"]);
    // Ids made in the same millisecond share their first 13 characters: the start tells them apart no better.
    expect(new Set(ids.map((id) => id.slice(0, 13))).size).toBe(1);
  });
});

describe("widgetRows", () => {
  it("gives one row per task in dispatch order, with its elapsed time since dispatch", () => {
    const now = 5 * MINUTE + 7_000;
    const tasks = [
      runningTask({ dispatchedAt: 0 }),
      runningTask({ dispatchedAt: 4 * MINUTE }),
      queuedTask({ dispatchedAt: now - 3_000 }),
    ];
    const rows = widgetRows(tasks, now);
    expect(rows.map((row) => (row.kind === "task" ? [row.taskId, row.status, row.elapsed] : row.kind))).toEqual([
      [tasks[0]!.taskId, "running", "05:07"],
      [tasks[1]!.taskId, "running", "01:07"],
      [tasks[2]!.taskId, "queued", "00:03"],
    ]);
  });

  it("numbers queued tasks by their place in line", () => {
    const rows = widgetRows([runningTask(), queuedTask(), queuedTask()], 0);
    expect(rows.map((row) => (row.kind === "task" ? row.activity : ""))).toEqual([
      "thinking",
      "queued (#1 in line)",
      "queued (#2 in line)",
    ]);
  });

  it("past the height budget hides the oldest behind a `+N more` row and keeps the newest", () => {
    const tasks = Array.from({ length: 9 }, (_, i) => runningTask({ dispatchedAt: i * 1000 }));
    const rows = widgetRows(tasks, 10_000);
    expect(rows).toHaveLength(WIDGET_MAX_ROWS);
    expect(rows[0]).toEqual({ kind: "more", hidden: 4 });
    expect(rows.slice(1).map((row) => (row.kind === "task" ? row.taskId : ""))).toEqual(
      tasks.slice(4).map((task) => task.taskId),
    );
  });

  it("shows every task when they fit exactly", () => {
    const rows = widgetRows(
      Array.from({ length: WIDGET_MAX_ROWS }, () => runningTask()),
      0,
    );
    expect(rows.every((row) => row.kind === "task")).toBe(true);
    expect(rows).toHaveLength(WIDGET_MAX_ROWS);
  });
});

describe("widgetLines", () => {
  const tool = {
    name: "bash",
    summary: "npm test -- --run test/unit/some/really/long/path/to/a/test/file.test.ts",
    at: 0,
  };
  const tasks = () => [
    runningTask({
      agent: "coder",
      dispatchedAt: 0,
      state: runState({ phase: "tool", currentTool: tool, lastTool: tool }),
    }),
    runningTask({ agent: "writer", dispatchedAt: 30_000, state: runState({ phase: "thinking" }) }),
    queuedTask({ agent: "coder", dispatchedAt: 80_000 }),
  ];

  it("draws a titled rule with the counts, then aligned rows: id, agent, activity, clock", () => {
    const list = tasks();
    const lines = plainLines(widgetLines(list, 83_000, 120, plain));
    expect(lines[0]).toMatch(/^── Subagents · 2 running · 1 queued ─+$/);
    expect(lines[0]).toHaveLength(120);
    expect(lines[1]).toMatch(
      new RegExp(
        `^ ● ${list[0]!.taskId.slice(-8)}  coder   ⚡ bash: npm test -- --run test/unit/some/really/long/path/to/a/test/file\\.test\\.ts  01:23$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`^ ● ${list[1]!.taskId.slice(-8)}  writer  thinking +00:53$`));
    expect(lines[3]).toMatch(new RegExp(`^ ○ ${list[2]!.taskId.slice(-8)}  coder   queued \\(#1 in line\\) +00:03$`));
    // The clocks line up in one column.
    expect(new Set(lines.slice(1).map((line) => visibleWidth(line)))).toEqual(new Set([visibleWidth(lines[1]!)]));
  });

  it("shows a question waiting for the person right under the title, within the width", () => {
    const question = "? explore 01a2b3c4 asks: Allow rm -rf build? · /subagent-answer";
    const lines = plainLines(widgetLines(tasks(), 83_000, 120, plain, undefined, question));
    expect(lines[1]).toBe(` ${question}`);
    expect(lines).toHaveLength(5);
    for (const line of widgetLines(tasks(), 83_000, 30, darkTheme(), undefined, question))
      expect(visibleWidth(line)).toBeLessThanOrEqual(30);
  });

  it.each([120, 80, 50, 30, 12, 5])(
    "never draws a line wider than the terminal (%i columns), colours included",
    (width) => {
      const lines = widgetLines(tasks(), 83_000, width, darkTheme());
      for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
      // Every task still has a row.
      expect(lines).toHaveLength(4);
    },
  );

  it("keeps the clock visible on a narrow terminal by shortening the activity", () => {
    const lines = plainLines(widgetLines(tasks(), 83_000, 60, plain));
    expect(lines[1]).toMatch(/  coder   ⚡ bash: npm test -- --run test…  01:23$/);
    expect(visibleWidth(lines[1]!)).toBe(60);
  });

  it("shows the `+N more` row under the title when tasks exceed the budget", () => {
    const many = Array.from({ length: 8 }, (_, i) => runningTask({ dispatchedAt: i * 1000 }));
    const lines = plainLines(widgetLines(many, 10_000, 100, plain));
    expect(lines).toHaveLength(1 + WIDGET_MAX_ROWS);
    expect(lines[0]).toMatch(/^── Subagents · 8 running ─+$/);
    expect(lines[1]).toBe(" +3 more");
    expect(lines[2]).toContain(many[3]!.taskId.slice(-8));
    expect(lines[6]).toContain(many[7]!.taskId.slice(-8));
  });
});

describe("a batch's or chain's rows (issue 27)", () => {
  it("sit under one group line naming the workflow, each named by its place in it", () => {
    const id = "01912345-0000-7000-8000-00000000abcd";
    const single = runningTask({ agent: "writer" });
    const parts = [1, 2].map((index) =>
      runningTask({ agent: "explore", workflow: { id, kind: "batch", index, total: 2 } }),
    );
    const step = runningTask({
      agent: "coder",
      workflow: { id: "01912399-0000-7000-8000-00000000ef01", kind: "chain", index: 2, total: 3 },
    });
    const lines = plainLines(widgetLines([single, ...parts, step], 0, 100, plain));
    expect(lines[2]).toBe(" ┌ batch 0000abcd · 2 parts");
    expect(lines[3]).toMatch(/^ ● \S+ +1\. explore /);
    expect(lines[4]).toMatch(/^ ● \S+ +2\. explore /);
    expect(lines[5]).toBe(" ┌ chain 0000ef01 · step 2 of 3");
    expect(lines[6]).toMatch(/^ ● \S+ +2\. coder /);
    expect(lines[1]).toMatch(/^ ● \S+ +writer /);
  });
});
