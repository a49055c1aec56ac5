import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lookupResult, lookupRunning, taskSources } from "../../../src/commands/task-lookup.ts";
import { writeRecord } from "../../../src/records/record-store.ts";
import { FakeSources, ID_A, ID_B, ID_C, ID_OLD, record, snapshot } from "../pi/commands/fakes.ts";

describe("finding a task to cancel or watch", () => {
  it("finds a running task by prefix, and lists running matches of an ambiguous one", () => {
    const sources = new FakeSources();
    sources.running_ = [snapshot(ID_A, { agent: "coder" }), snapshot(ID_B, { agent: "writer" })];
    expect(lookupRunning(ID_B.slice(0, 20), sources)).toMatchObject({ kind: "running", task: { taskId: ID_B } });
    expect(lookupRunning("01912345", sources)).toEqual({
      kind: "ambiguous",
      prefix: "01912345",
      matches: [
        { taskId: ID_A, agent: "coder" },
        { taskId: ID_B, agent: "writer" },
      ],
    });
  });

  it("tells a task that already finished, or that runs in another pi, from an unknown id", () => {
    const sources = new FakeSources().add(record(ID_OLD));
    sources.bareFolders = [ID_C];
    sources.running_ = [snapshot(ID_A)];
    expect(lookupRunning("01900000", sources)).toMatchObject({ kind: "finished", record: { taskId: ID_OLD } });
    sources.locked.add(ID_C);
    expect(lookupRunning("01912399", sources)).toEqual({ kind: "elsewhere", taskId: ID_C });
    sources.locked.clear();
    expect(lookupRunning("01912399", sources)).toEqual({ kind: "unknown", prefix: "01912399" });
    expect(lookupRunning("abcd", sources)).toEqual({ kind: "unknown", prefix: "abcd" });
    expect(lookupRunning("01", sources)).toEqual({ kind: "too-short", prefix: "01" });
  });
});

describe("a batch's or chain's id, whole or its short id", () => {
  const BATCH = "01912345-6789-7abc-8def-00000000babe";
  const partOf = (index: number) => ({ workflow: { id: BATCH, kind: "batch" as const, index, total: 2 } });

  it("finds a batch in flight by the short id its group line in the widget shows, with its parts", () => {
    const sources = new FakeSources();
    sources.running_ = [
      snapshot(ID_A, { agent: "coder", ...partOf(1) }),
      snapshot(ID_B, { agent: "writer", ...partOf(2) }),
      snapshot(ID_C),
    ];
    const found = lookupRunning("00babe", sources);
    expect(found).toMatchObject({ kind: "workflow", workflow: { workflowId: BATCH, workflowKind: "batch" } });
    expect(found.kind === "workflow" && found.workflow.parts.map((part) => part.taskId)).toEqual([ID_A, ID_B]);
    expect(lookupRunning(BATCH, sources)).toMatchObject({ kind: "workflow" });
    // A part's own short id still names the part, not its batch.
    expect(lookupRunning(ID_B.slice(-8), sources)).toMatchObject({ kind: "running", task: { taskId: ID_B } });
  });

  it("finds a finished batch's record by its card's short id, and a running one as still running", () => {
    const sources = new FakeSources().add(record(ID_A));
    const stored = {
      version: 1,
      workflowId: BATCH,
      kind: "batch",
      partIds: [ID_A],
      finishedAt: 1,
      envelope: "",
      delivered: true,
    } as never;
    sources.workflows.set(BATCH, stored);
    expect(lookupResult(BATCH.slice(-8), sources)).toEqual({ kind: "workflow", workflowId: BATCH, record: stored });
    sources.workflows.clear();
    sources.running_ = [snapshot(ID_B, partOf(1))];
    expect(lookupResult(BATCH.slice(-8), sources)).toEqual({ kind: "workflow", workflowId: BATCH, record: undefined });
  });
});

describe("finding a task whose result to show", () => {
  it("finds a finished task's record by prefix", () => {
    const sources = new FakeSources().add(record(ID_OLD), record(ID_C));
    expect(lookupResult("0190", sources)).toMatchObject({ kind: "record", record: { taskId: ID_OLD } });
  });

  it("says running for a task running here (even one resumed, with an old record) or in another pi", () => {
    const sources = new FakeSources().add(record(ID_A), record(ID_C));
    sources.running_ = [snapshot(ID_A)];
    expect(lookupResult(ID_A, sources)).toEqual({ kind: "running", taskId: ID_A });
    sources.locked.add(ID_C);
    expect(lookupResult(ID_C, sources)).toEqual({ kind: "running", taskId: ID_C });
  });

  it("says no record for a task folder without one, and unknown for an id with no folder", () => {
    const sources = new FakeSources();
    sources.bareFolders = [ID_C];
    expect(lookupResult("01912399", sources)).toEqual({ kind: "no-record", taskId: ID_C });
    expect(lookupResult("ffff0000", sources)).toEqual({ kind: "unknown", prefix: "ffff0000" });
  });

  it("names the agents of an ambiguous prefix's matches from the registry and the records", () => {
    const sources = new FakeSources().add(record(ID_B, { agent: "writer" }));
    sources.running_ = [snapshot(ID_A, { agent: "coder" })];
    expect(lookupResult("01912345", sources)).toEqual({
      kind: "ambiguous",
      prefix: "01912345",
      matches: [
        { taskId: ID_A, agent: "coder" },
        { taskId: ID_B, agent: "writer" },
      ],
    });
  });
});

describe("task sources on disk", () => {
  let agentDir: string;
  beforeEach(() => {
    agentDir = mkdtempSync(join(tmpdir(), "pi-subagent-lookup-"));
  });
  afterEach(() => rmSync(agentDir, { recursive: true, force: true }));

  it("reads records, lists task folders newest first, and sees a live run lock", () => {
    writeRecord(agentDir, record(ID_OLD, { finishedAt: 5 }));
    writeRecord(agentDir, record(ID_A, { finishedAt: 9 }));
    mkdirSync(join(agentDir, "subagent-sessions", ID_C), { recursive: true });
    writeFileSync(
      join(agentDir, "subagent-sessions", ID_C, "run.lock"),
      JSON.stringify({ pid: process.pid, agent: "coder", since: 1 }),
    );
    writeFileSync(
      join(agentDir, "subagent-sessions", ID_OLD, "run.lock"),
      JSON.stringify({ pid: 2 ** 22 + 12345, agent: "coder", since: 1 }),
    );
    const sources = taskSources(
      () => undefined,
      () => agentDir,
    );
    expect(sources.running()).toEqual([]);
    expect(sources.storedIds()).toEqual([ID_C, ID_A, ID_OLD]);
    expect(sources.record(ID_A)?.taskId).toBe(ID_A);
    expect(sources.recentRecords(10).map((r) => r.taskId)).toEqual([ID_A, ID_OLD]);
    expect(sources.runLockHeld(ID_C)).toBe(true);
    expect(sources.runLockHeld(ID_OLD)).toBe(false);
    expect(sources.runLockHeld(ID_A)).toBe(false);
    expect(lookupResult("01912399", sources)).toEqual({ kind: "running", taskId: ID_C });
  });
});
