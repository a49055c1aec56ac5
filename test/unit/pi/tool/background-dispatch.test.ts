import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forgetExitHooksForTests } from "../../../../src/run/processes.ts";
import { initialRunState, type RunOutcome } from "../../../../src/run/event-reducer.ts";
import { BackgroundTasks } from "../../../../src/tasks/background-tasks.ts";
import { writeRecord } from "../../../../src/records/record-store.ts";
import { newTaskId } from "../../../../src/shared/run-settings.ts";
import { createBackgroundDispatcher } from "../../../../src/pi/tool/background-dispatch.ts";
import { dispatchReceipt, receiptText } from "../../../../src/pi/tool/execute.ts";
import type { PreparedRun } from "../../../../src/tool/prepare-dispatch.ts";

let agentDir: string;
let clock: number;
let tasks: BackgroundTasks;
let stops: string[];

const ctx = { sessionManager: { getSessionId: () => "parent" } } as unknown as ExtensionContext;

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((part) => part.text ?? "").join("");
}

/** A background dispatch as the tool makes it: straight to the tasks, answered with the receipt. */
function dispatch(prepared: PreparedRun) {
  return dispatchReceipt(prepared, tasks.dispatch(prepared, ctx.sessionManager.getSessionId()));
}

function job(task: string): PreparedRun {
  const taskId = newTaskId();
  return {
    taskId,
    agent: { name: "coder", description: "c", body: "", source: "project", filePath: "/c.md" },
    task,
    resumed: false,
    sessionFile: join(agentDir, taskId, "session.jsonl"),
    cwd: agentDir,
    command: { command: "node", args: [], env: {}, mode: "json", prompt: "Task: test" },
    resolved: { model: {}, thinking: {} },
    notes: [],
    release: () => {},
  };
}

beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "bg-dispatch-"));
  clock = 10_000_000;
  stops = [];
  tasks = new BackgroundTasks({
    agentDir,
    settings: { activityTimeoutMs: 600_000, hardTimeoutMs: 0, maxConcurrent: 1, killGraceMs: 10 },
    send: () => {},
    startRun: () => ({
      pid: undefined,
      state: initialRunState(clock),
      startedAt: clock,
      done: new Promise<RunOutcome>(() => {}),
      stop: (cause) => stops.push(cause) > 0,
      over: false,
      steer: () => "sent",
    }),
    now: () => clock,
  });
});
afterEach(() => {
  forgetExitHooksForTests();
  rmSync(agentDir, { recursive: true, force: true });
});

describe("the dispatch receipt", () => {
  it("is the spec's single line, and says so in one line when the task is queued", () => {
    const first = job("A");
    expect(text(dispatch(first))).toBe(`Dispatched coder. taskId: ${first.taskId}`);
    const second = job("B");
    const queued = text(dispatch(second));
    expect(queued).toBe(
      `Dispatched coder. taskId: ${second.taskId} (queued: 1 subagent already running, this one is number 1 in line and starts when a slot frees)`,
    );
    expect(queued).not.toContain("\n");
    expect(receiptText("x", "id")).toBe("Dispatched x. taskId: id");
  });

  it("names a sandbox on a second line", () => {
    const sandboxed: PreparedRun = {
      ...job("A"),
      origin: { depth: 1, maxDepth: 1, context: "fresh", sandbox: "read-only" },
    };
    expect(text(dispatch(sandboxed))).toBe(`Dispatched coder. taskId: ${sandboxed.taskId}\n- Sandbox: read-only`);
  });
});

describe("the receipt of a task the tool ceiling narrowed", () => {
  it("names what was not granted on a second line", () => {
    const narrowed = {
      ...job("A"),
      origin: {
        depth: 1,
        maxDepth: 1,
        context: "fresh" as const,
        toolsNotGranted: "tools not granted: bash (the main session has read-only tools)",
      },
    };
    expect(text(dispatch(narrowed))).toBe(
      `Dispatched coder. taskId: ${narrowed.taskId}\ntools not granted: bash (the main session has read-only tools)`,
    );
  });
});

describe("cancel by the agent", () => {
  it("first answers with a challenge that changes nothing, then cancels with a reason", () => {
    const dispatcher = createBackgroundDispatcher(
      () => tasks,
      () => agentDir,
      () => clock,
    );
    const running = job("Refactor auth");
    const other = job("Write docs");
    dispatch(running);
    dispatch(other);
    clock += 83_000;

    const challenge = dispatcher.cancel({ action: "cancel", taskId: running.taskId }, ctx);
    expect(challenge.details).toEqual({ confirmRequired: true, taskId: running.taskId, agent: "coder" });
    expect(text(challenge)).toBe(
      [
        "Confirm before cancelling. Nothing has been cancelled yet.",
        `- Task: ${running.taskId} (coder): Refactor auth`,
        "- Running for: 01:23",
        "- Last progress: none reported yet",
        "Cancelling stops the subagent: it is asked to end its turn, then its processes are ended; only what it wrote so far and the tools it ran are kept, the rest of its work is lost. This cannot be undone.",
        `To cancel, call subagent again with action="cancel", taskId="${running.taskId}", confirm=true and a non-empty reason. Do not cancel a task only because it takes long.`,
      ].join("\n"),
    );
    expect(stops).toEqual([]);
    expect(tasks.registry.has(running.taskId)).toBe(true);

    expect(() =>
      dispatcher.cancel({ action: "cancel", taskId: running.taskId, confirm: true, reason: "  " }, ctx),
    ).toThrow('action=cancel with confirm=true needs a non-empty "reason"');
    expect(stops).toEqual([]);

    const done = dispatcher.cancel(
      { action: "cancel", taskId: running.taskId, confirm: true, reason: "wrong agent" },
      ctx,
    );
    expect(stops).toEqual(["aborted"]);
    expect(text(done)).toBe(
      [
        `Cancel request sent for ${running.taskId} (coder). Its cancelled result will arrive as a [subagent-result] notification.`,
        "",
        "Other tasks in flight now: 1",
        `- ${other.taskId} (coder): Write docs`,
      ].join("\n"),
    );
  });

  it("shows the last progress age of a task that reported something", () => {
    const dispatcher = createBackgroundDispatcher(
      () => tasks,
      () => agentDir,
      () => clock,
    );
    const running = job("Busy");
    dispatch(running);
    const state = tasks.registry.get(running.taskId)!.state!;
    state.events = 3;
    state.lastEventAt = clock;
    clock += 12_000;
    expect(text(dispatcher.cancel({ action: "cancel", taskId: running.taskId }, ctx))).toContain(
      "- Last progress: 00:12 ago",
    );
  });

  it("refuses a blank, unknown or finished id with nothing changed", () => {
    const dispatcher = createBackgroundDispatcher(
      () => tasks,
      () => agentDir,
      () => clock,
    );
    expect(() => dispatcher.cancel({ action: "cancel", taskId: " " }, ctx)).toThrow('action=cancel needs "taskId"');
    const unknown = newTaskId();
    expect(() => dispatcher.cancel({ action: "cancel", taskId: unknown }, ctx)).toThrow(
      `No background subagent task with taskId ${unknown} is in flight.`,
    );
    const finished = newTaskId();
    writeRecord(agentDir, {
      version: 1,
      taskId: finished,
      agent: "coder",
      task: "t",
      mode: "async",
      status: "succeeded",
      exitCode: 0,
      usage: { turns: 1, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
      durationMs: 1,
      dispatchedAt: 0,
      finishedAt: 1,
      output: "x",
      sessionFile: "/s",
      cwd: "/",
      delivered: true,
    });
    expect(() => dispatcher.cancel({ action: "cancel", taskId: finished, confirm: true, reason: "r" }, ctx)).toThrow(
      `Task ${finished} already finished (succeeded); there is nothing to cancel.`,
    );
  });
});

describe("message by the agent", () => {
  it("acknowledges a running and a queued task in one line each, and records both", () => {
    const dispatcher = createBackgroundDispatcher(
      () => tasks,
      () => agentDir,
      () => clock,
    );
    const running = job("A");
    const queued = job("B");
    dispatch(running);
    dispatch(queued);
    expect(text(dispatcher.message({ action: "message", taskId: running.taskId, message: "also b.ts" }, ctx))).toBe(
      `Message sent to ${running.taskId} (coder); it reaches the subagent before its next model call.`,
    );
    expect(text(dispatcher.message({ action: "message", taskId: queued.taskId, message: "use tabs" }, ctx))).toBe(
      `Message added to queued task ${queued.taskId} (coder); the subagent reads it with its task when it starts.`,
    );
    expect(tasks.registry.get(running.taskId)!.messages).toEqual([
      expect.objectContaining({ from: "agent", text: "also b.ts", delivery: "steer" }),
    ]);
    expect(tasks.registry.get(queued.taskId)!.messages).toEqual([
      expect.objectContaining({ from: "agent", text: "use tabs", delivery: "queued" }),
    ]);
  });

  it("refuses a missing id, an empty message, a NUL, an unknown id and a finished task, changing nothing", () => {
    const dispatcher = createBackgroundDispatcher(
      () => tasks,
      () => agentDir,
      () => clock,
    );
    const running = job("A");
    dispatch(running);
    expect(() => dispatcher.message({ action: "message", message: "hi" }, ctx)).toThrow(
      /^action=message needs "taskId"/,
    );
    expect(() => dispatcher.message({ action: "message", taskId: running.taskId, message: "  " }, ctx)).toThrow(
      'action=message needs a non-empty "message": the text to send to the subagent. Nothing was sent.',
    );
    expect(() => dispatcher.message({ action: "message", taskId: running.taskId, message: "a\0b" }, ctx)).toThrow(
      /^The message contains a NUL character/,
    );
    const unknown = newTaskId();
    expect(() => dispatcher.message({ action: "message", taskId: unknown, message: "hi" }, ctx)).toThrow(
      `No background subagent task with taskId ${unknown} is in flight. Check the id against your dispatch receipts. Nothing was sent.`,
    );
    expect(() =>
      dispatcher.message({ action: "message", taskId: `../../${"x".repeat(500)}`, message: "hi" }, ctx),
    ).toThrow(/^No background subagent task with taskId \.\.\/\.\.\/x+… is in flight/);
    const finished = newTaskId();
    writeRecord(agentDir, {
      version: 1,
      taskId: finished,
      agent: "coder",
      task: "t",
      mode: "async",
      status: "succeeded",
      exitCode: 0,
      usage: { turns: 1, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
      durationMs: 1,
      dispatchedAt: 0,
      finishedAt: 1,
      output: "x",
      sessionFile: "/s",
      cwd: "/",
      delivered: true,
    });
    expect(() => dispatcher.message({ action: "message", taskId: finished, message: "hi" }, ctx)).toThrow(
      `Task ${finished} already finished (succeeded); a message cannot reach it. To continue that subagent's conversation, dispatch again with sessionId="${finished}" and your message as the task. Nothing was sent.`,
    );
    expect(tasks.registry.get(running.taskId)!.messages).toEqual([]);
  });
});

describe("a batch through the background path (issue 27)", () => {
  const admitted = (prepared: PreparedRun) => ({
    agent: prepared.agent.name,
    task: prepared.task,
    prepare: () => ({ prepared, askPerson: true }),
  });

  it("answers with one receipt (the batch id, each part's taskId, the queued one marked) and cancels the whole batch in two steps", async () => {
    const dispatcher = createBackgroundDispatcher(
      () => tasks,
      () => agentDir,
      () => clock,
    );
    const parts = [job("first part"), job("second part")];
    const receipt = await dispatcher.dispatchWorkflow(
      { kind: "batch", parts: [{ task: "first part" }, { task: "second part" }] },
      {
        reserve: async () => undefined,
        admit: async (params) => admitted(parts.find((part) => part.task === params.task)!),
      },
      ctx,
    );
    const lines = text(receipt).split("\n");
    const id = /^Dispatched batch of 2\. batchId: ([0-9a-f-]{36})$/.exec(lines[0]!)?.[1];
    expect(id).toBeDefined();
    // maxConcurrent is 1 here: the second part waits for a slot.
    expect(lines.slice(1)).toEqual([
      `- 1. coder taskId: ${parts[0]!.taskId}`,
      `- 2. coder taskId: ${parts[1]!.taskId} · queued`,
      "One [subagent-result] for the whole batch arrives once it has ended; each part keeps its own taskId for /subagent-result and cancel.",
    ]);

    const challenge = text(dispatcher.cancel({ action: "cancel", taskId: id }, ctx));
    expect(challenge).toContain(
      `- Batch ${id}, parts in flight: 2\n- ${parts[0]!.taskId} (coder): first part\n- ${parts[1]!.taskId} (coder): second part`,
    );
    expect(challenge).toContain(
      `call subagent again with action="cancel", taskId="${id}", confirm=true and a non-empty reason`,
    );
    expect(tasks.counts()).toMatchObject({ running: 1, queued: 1 });
    const sent = text(dispatcher.cancel({ action: "cancel", taskId: id, confirm: true, reason: "plan changed" }, ctx));
    expect(sent).toBe(
      `Cancel request sent for 2 parts of batch ${id}. Its one [subagent-result] arrives once every part has ended.`,
    );
    expect(stops).toEqual(["aborted"]);
  });

  it("a refused part starts none of the batch", async () => {
    const dispatcher = createBackgroundDispatcher(
      () => tasks,
      () => agentDir,
      () => clock,
    );
    const first = job("fine");
    await expect(
      dispatcher.dispatchWorkflow(
        {
          kind: "batch",
          parts: [
            { agent: "coder", task: "fine" },
            { agent: "nobody", task: "x" },
          ],
        },
        {
          reserve: async () => undefined,
          admit: async (params) => {
            if (params.agent === "nobody") throw new Error('Unknown agent "nobody".');
            return admitted(first);
          },
        },
        ctx,
      ),
    ).rejects.toThrow('Part 2 (nobody) was refused: Unknown agent "nobody". Nothing was started.');
    expect(tasks.counts()).toMatchObject({ running: 0, queued: 0 });
  });
});
