import { describe, expect, it } from "vitest";
import { COMPLETIONS_MAX, completionItems, taskCompletions } from "../../../src/commands/task-commands.ts";
import { FakeSources, ID_A, ID_B, ID_C, ID_OLD, record, snapshot } from "../pi/commands/fakes.ts";

describe("task id completion", () => {
  it("offers the ids starting with what is typed, with agent, status and task", () => {
    const items = completionItems("0191 ", [
      { taskId: ID_A, agent: "coder", status: "running 00:10", task: "Fix\nthe bug" },
      { taskId: ID_OLD, agent: "writer", status: "succeeded", task: "Docs" },
    ]);
    expect(items).toEqual([
      { value: ID_A, label: "01912345…456789ab coder", description: "running 00:10 · Fix the bug" },
    ]);
    expect(completionItems("ffff", [{ taskId: ID_A, agent: "coder", status: "x", task: "y" }])).toBeNull();
  });

  it("offers the task whose short id (the end the widget shows) is typed", () => {
    const tasks = [
      { taskId: ID_A, agent: "coder", status: "running 00:10", task: "Fix" },
      { taskId: ID_B, agent: "writer", status: "running 00:10", task: "Docs" },
    ];
    expect(completionItems(ID_B.slice(-8), tasks)!.map((item) => item.value)).toEqual([ID_B]);
  });

  it("offers at most 20", () => {
    const tasks = Array.from({ length: 30 }, (_, i) => ({
      taskId: `0191${String(i).padStart(4, "0")}`,
      agent: "a",
      status: "s",
      task: "t",
    }));
    expect(completionItems("", tasks)).toHaveLength(COMPLETIONS_MAX);
  });

  it("offers running tasks for cancel and watch, and running plus recent finished ones for result", () => {
    const sources = new FakeSources().add(record(ID_OLD, { agent: "writer" }));
    sources.running_ = [
      snapshot(ID_A, { agent: "coder", startedAt: 1_000 }),
      snapshot(ID_B, { status: "queued", startedAt: undefined }),
    ];
    const completions = taskCompletions(sources, () => 31_000);
    expect(completions.running("")!.map((i) => [i.value, i.description?.split(" · ")[0]])).toEqual([
      [ID_A, "running 00:30"],
      [ID_B, "queued"],
    ]);
    expect(completions.runningAndRecent("")!.map((i) => i.value)).toEqual([ID_A, ID_B, ID_OLD]);
    expect(completions.runningAndRecent("0190")!.map((i) => i.label)).toEqual(["01900000…000000ff writer"]);
  });

  it("offers /subagent-cancel a batch's id after its parts, once, with how many parts are in flight", () => {
    const sources = new FakeSources();
    const workflow = { id: ID_C, kind: "batch" as const, total: 3 };
    sources.running_ = [
      snapshot(ID_A, { startedAt: 1_000, workflow: { ...workflow, index: 1 } }),
      snapshot(ID_B, { startedAt: 1_000, workflow: { ...workflow, index: 2 } }),
    ];
    const items = taskCompletions(sources, () => 31_000).cancellable("")!;
    expect(items.map((item) => item.value)).toEqual([ID_A, ID_B, ID_C]);
    expect(items[2]).toEqual({
      value: ID_C,
      label: `${ID_C.slice(0, 8)}…${ID_C.slice(-8)} batch of 3`,
      description: "2 in flight · every part of the batch",
    });
  });

  it("reads finished tasks from disk at most every few seconds", () => {
    const sources = new FakeSources().add(record(ID_OLD));
    let reads = 0;
    const original = sources.recentRecords.bind(sources);
    sources.recentRecords = (limit) => (reads++, original(limit));
    let now = 0;
    const completions = taskCompletions(sources, () => now);
    completions.runningAndRecent("0");
    sources.add(record(ID_C));
    now = 1000;
    expect(completions.runningAndRecent("0")!.map((i) => i.value)).toEqual([ID_OLD]);
    now = 5000;
    expect(completions.runningAndRecent("0")!.map((i) => i.value)).toContain(ID_C);
    expect(reads).toBe(2);
  });
});
