/**
 * The trace's reader against a real agent dir: a chain's record and its parts' records and sessions, a nested
 * child found by its record's parent, an unrelated task of the same moment left out, and the recent delegations.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeRecord } from "../../../src/records/record-store.ts";
import { writeWorkflowRecord } from "../../../src/workflows/background-workflow.ts";
import { taskSources } from "../../../src/commands/task-lookup.ts";
import { lookupTrace, recentTraces, type TraceReader } from "../../../src/trace/trace-store.ts";
import { buildTrace } from "../../../src/trace/trace.ts";
import { parseTraceArgs, TRACE_USAGE } from "../../../src/trace/trace-args.ts";
import { ownIdentity } from "../../../src/shared/proc-identity.ts";
import {
  CHAIN_ID,
  LEAF,
  LEAF_SESSION,
  record,
  STEP1,
  STEP1_SESSION,
  STEP2,
  STEP2_SESSION,
  T0,
} from "./trace-fixtures.ts";

/** A task of the same moment started by someone else (the main session): not part of the chain's tree. */
const OTHER = "01a24476-5b00-7000-8000-000000000001";
const NESTED_BATCH = "01a24476-5c00-7000-8000-000000000002";

let agentDir: string;

function writeSession(taskId: string, text: string): void {
  mkdirSync(join(agentDir, "subagent-sessions", taskId), { recursive: true });
  writeFileSync(join(agentDir, "subagent-sessions", taskId, "session.jsonl"), `${text}\n`);
}

function reader(): TraceReader {
  return {
    agentDir,
    sources: taskSources(
      () => undefined,
      () => agentDir,
    ),
    now: () => T0 + 10_000,
  };
}

beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "trace-store-"));
  // The fixture's times are T0-based; the ids' own clock (their first 48 bits) is what the window uses.
  const idClock = Number.parseInt(CHAIN_ID.slice(0, 8) + CHAIN_ID.slice(9, 13), 16) - T0;
  const at = (taskId: string, start: number, end: number, fields = {}) =>
    writeRecord(agentDir, record(taskId, { start: start + idClock, end: end + idClock, ...fields }));
  const workflow = (index: number) => ({ workflow: { id: CHAIN_ID, kind: "chain" as const, index, total: 2 } });
  at(STEP1, 0, 600, workflow(1));
  at(STEP2, 1000, 2600, workflow(2));
  at(LEAF, 1450, 2450, { parentSessionId: STEP2, origin: { depth: 2, maxDepth: 2, context: "fresh" } });
  at(OTHER, 1500, 1600, { parentSessionId: "01a24476-0000-7000-8000-00000000aaaa" });
  writeSession(STEP1, STEP1_SESSION);
  writeSession(STEP2, STEP2_SESSION);
  writeSession(LEAF, LEAF_SESSION);
  writeWorkflowRecord(agentDir, {
    version: 1,
    workflowId: CHAIN_ID,
    kind: "chain",
    partIds: [STEP1, STEP2],
    finishedAt: T0 + idClock + 2700,
    envelope: "…",
    details: {
      taskId: CHAIN_ID,
      agent: "chain of 2: 2 succeeded",
      task: "two steps",
      status: "succeeded",
      durationMs: 2700,
      usage: record(STEP1, { start: 0, end: 1 }).usage,
      workflow: { kind: "chain", parts: [] },
    },
    delivered: true,
  });
});

afterEach(() => rmSync(agentDir, { recursive: true, force: true }));

describe("reading a delegation's trace from disk", () => {
  it("resolves a chain's id by its start and gathers its parts and their nested child, and no other task", () => {
    const found = lookupTrace(reader(), CHAIN_ID.slice(0, 13));
    expect(found.kind).toBe("found");
    if (found.kind !== "found") return;
    expect(found.input.kind).toBe("chain");
    expect(found.input.rootIds).toEqual([STEP1, STEP2]);
    expect(found.input.tasks.map((task) => task.taskId).sort()).toEqual([STEP1, STEP2, LEAF].sort());
    const trace = buildTrace(found.input);
    expect(trace.roots[1]!.children.map((child) => child.taskId)).toEqual([LEAF]);
    expect(
      trace.roots[1]!.steps.filter((step) => step.kind === "tool").map((step) => step.kind === "tool" && step.name),
    ).toEqual(["bash", "read", "subagent"]);
  });

  it("traces one task with its nested child by the task's short id", () => {
    const found = lookupTrace(reader(), STEP2.slice(-8));
    expect(found.kind === "found" && found.input.tasks.map((task) => task.taskId)).toEqual([STEP2, LEAF]);
  });

  it("finds a nested child that still runs by its run.lock, which names its parent", () => {
    const deep = "01a24476-5b10-7000-8000-000000000002";
    writeSession(deep, LEAF_SESSION.split("\n")[0]!);
    const me = ownIdentity();
    writeFileSync(
      join(agentDir, "subagent-sessions", deep, "run.lock"),
      JSON.stringify({
        pid: me.pid,
        pidStart: me.start,
        agent: "digger",
        since: T0,
        task: "dig deeper",
        parentSessionId: STEP2,
      }),
    );
    const found = lookupTrace(reader(), STEP2);
    expect(found.kind).toBe("found");
    if (found.kind !== "found") return;
    const step2 = buildTrace(found.input).roots[0]!;
    expect(step2.children.map((child) => [child.agent, child.status, child.task]).sort()).toEqual([
      ["digger", "running", "dig deeper"],
      ["worker", "succeeded", "a task"],
    ]);
  });

  it("gathers a running batch's finished part that a warm child served (its id older than the batch's)", () => {
    // A batch started at the chain's moment; its first part ran in a child started ahead 60 s before, whose id it
    // took; its second part still runs.
    const batchId = "01a24476-5a00-7000-8000-0000000000b1";
    const batchTime = Number.parseInt(batchId.slice(0, 8) + batchId.slice(9, 13), 16);
    const hex = (ms: number) => ms.toString(16).padStart(12, "0");
    const warmPart = `${hex(batchTime - 60_000).slice(0, 8)}-${hex(batchTime - 60_000).slice(8)}-7000-8000-0000000000c1`;
    const runningPart = "01a24476-5a10-7000-8000-0000000000c2";
    const membership = (index: number) => ({ id: batchId, kind: "batch" as const, index, total: 2 });
    writeRecord(agentDir, record(warmPart, { start: 0, end: 500, workflow: membership(1) }));
    writeSession(warmPart, STEP1_SESSION);
    const sources = taskSources(
      () => undefined,
      () => agentDir,
    );
    const running = {
      taskId: runningPart,
      agent: "worker",
      task: "still going",
      status: "running" as const,
      dispatchedAt: T0,
      startedAt: T0,
      workflow: membership(2),
    };
    const found = lookupTrace({ agentDir, sources: { ...sources, running: () => [running] }, now: () => T0 }, batchId);
    expect(found.kind).toBe("found");
    if (found.kind !== "found") return;
    expect(found.input.rootIds).toEqual([warmPart, runningPart].sort());
  });

  it("says why for an id it cannot use", () => {
    expect(lookupTrace(reader(), "01a")).toMatchObject({ kind: "problem", found: { kind: "too-short" } });
    expect(lookupTrace(reader(), "ffffffff")).toMatchObject({ kind: "problem", found: { kind: "unknown" } });
  });

  it("lists the recent delegations: the chain, and tasks of the main agent that were no part of one", () => {
    // A blocking batch a subagent ran (its parent session is that subagent's task) belongs to the chain's tree.
    writeWorkflowRecord(agentDir, {
      version: 1,
      workflowId: NESTED_BATCH,
      kind: "batch",
      parentSessionId: STEP2,
      partIds: [],
      finishedAt: T0 + 3000,
      envelope: "…",
      details: {
        taskId: NESTED_BATCH,
        agent: "batch of 1: 1 succeeded",
        task: "1. worker",
        status: "succeeded",
        durationMs: 10,
        usage: record(STEP1, { start: 0, end: 1 }).usage,
        workflow: { kind: "batch", parts: [] },
      },
      delivered: true,
    });
    expect(recentTraces(reader(), 10).map((trace) => [trace.id, trace.kind])).toEqual([
      [CHAIN_ID, "chain"],
      [OTHER, "task"],
    ]);
  });
});

describe("/subagent-trace's arguments", () => {
  it("takes an id, and --json with the rest as the file", () => {
    expect(parseTraceArgs("")).toEqual({ id: "" });
    expect(parseTraceArgs(" 01a2 ")).toEqual({ id: "01a2" });
    expect(parseTraceArgs("01a2 --json out/my spans.jsonl")).toEqual({ id: "01a2", jsonFile: "out/my spans.jsonl" });
    expect(parseTraceArgs("--json x.jsonl")).toEqual({ id: "", jsonFile: "x.jsonl" });
    expect(parseTraceArgs("01a2 --json")).toEqual({ error: TRACE_USAGE });
  });
});
