import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forgetExitHooksForTests } from "../../../src/run/processes.ts";
import { initialRunState, type RunOutcome, type StopCause } from "../../../src/run/event-reducer.ts";
import type { RunHandle, RunSpec } from "../../../src/run/runner.ts";
import { emptyUsage } from "../../../src/shared/text.ts";
import { BackgroundTasks, type ResultMessage } from "../../../src/tasks/background-tasks.ts";
import { readRecord, type SubagentResultDetails } from "../../../src/records/record-store.ts";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import type { PreparedRun } from "../../../src/tool/prepare-dispatch.ts";
import type { LifecycleSink } from "../../../src/delivery/lifecycle-events.ts";
import { resultRun } from "../../../src/delivery/delivery-tracker.ts";

/** A run whose end the test decides. */
class FakeRun {
  stopped?: StopCause;
  private resolveDone!: (outcome: RunOutcome) => void;
  readonly handle: RunHandle;
  /** The run's answer is complete (or it ended): it can no longer be stopped or steered. */
  over = false;
  readonly steered: string[] = [];
  constructor(
    readonly spec: RunSpec,
    now: number,
  ) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the handle's getter reads this run's flag
    const self = this;
    const done = new Promise<RunOutcome>((resolve) => (this.resolveDone = resolve));
    const state = initialRunState(now);
    this.handle = {
      pid: undefined,
      state,
      startedAt: now,
      done,
      stop: (cause) => {
        if (this.stopped || this.over) return false;
        this.stopped = cause;
        this.end(cause === "killed_on_shutdown" || cause === "aborted" ? "cancelled" : "timed out", "", cause);
        return true;
      },
      get over() {
        return self.over;
      },
      steer: (text) => {
        if (this.over) return "ended";
        this.steered.push(text);
        return "sent";
      },
    };
  }
  end(status: RunOutcome["status"], output: string, stopReason = "stop"): void {
    this.over = true;
    this.resolveDone({
      status,
      exitCode: status === "succeeded" ? 0 : null,
      signal: null,
      stopReason,
      output,
      usage: { ...emptyUsage(), turns: 1 },
      startedAt: this.handle.startedAt,
      finishedAt: this.handle.startedAt + 1000,
      durationMs: 1000,
      stderrTail: "",
    });
  }
}

let agentDir: string;
let runs: FakeRun[];
let sent: ResultMessage[];
let failSend: boolean;
let clock: number;

let notes: string[];
let idle: boolean;

let ended: string[];

function makeTasks(maxConcurrent = 8, events?: LifecycleSink): BackgroundTasks {
  return new BackgroundTasks({
    events,
    onDelegationEnded: (rootId) => ended.push(rootId),
    isIdle: () => idle,
    notify: (text) => notes.push(text),
    agentDir,
    settings: { activityTimeoutMs: 600_000, hardTimeoutMs: 0, maxConcurrent, killGraceMs: 10 },
    send: (message) => {
      if (failSend) throw new Error("This extension ctx is stale");
      sent.push(message);
    },
    startRun: (spec) => {
      const run = new FakeRun(spec, clock);
      runs.push(run);
      spec.onSpawned?.(4000 + runs.length);
      return run.handle;
    },
    now: () => clock,
  });
}

function prepared(task: string, released: string[] = []): PreparedRun {
  const taskId = newTaskId();
  return {
    taskId,
    agent: { name: "worker", description: "w", body: "", source: "project", filePath: "/x/worker.md" },
    task,
    resumed: false,
    sessionFile: join(agentDir, "subagent-sessions", taskId, "session.jsonl"),
    cwd: agentDir,
    command: { command: "node", args: [], env: {}, mode: "json", prompt: "Task: test" },
    resolved: { model: {}, thinking: {} },
    notes: [],
    release: () => released.push(taskId),
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const outbox = () =>
  existsSync(join(agentDir, "subagent-sessions", ".outbox"))
    ? readdirSync(join(agentDir, "subagent-sessions", ".outbox"))
    : [];

beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "bg-tasks-"));
  runs = [];
  sent = [];
  failSend = false;
  clock = 1_000_000;
  notes = [];
  idle = false;
  ended = [];
});
afterEach(() => {
  forgetExitHooksForTests();
  rmSync(agentDir, { recursive: true, force: true });
});

describe("background tasks", () => {
  it("tells the lifecycle events in order: queued (waiting for a slot or not), started with the pid, ended, delivered", async () => {
    const heard: Array<{ channel: string; payload: Record<string, unknown> }> = [];
    const tasks = makeTasks(1, (channel, payload) => heard.push({ channel, payload: { ...payload } }));
    const a = prepared("task A");
    const b = prepared("task B");
    tasks.dispatch(a, "p");
    tasks.dispatch(b, "p");
    expect(heard.map(({ channel, payload }) => [channel, payload.taskId])).toEqual([
      ["subagent:queued", a.taskId],
      ["subagent:started", a.taskId],
      ["subagent:queued", b.taskId],
    ]);
    expect(heard[0]!.payload).toMatchObject({
      source: "pi-subagent-dispatch",
      agent: "worker",
      task: "task A",
      mode: "async",
      waiting: false,
      at: clock,
    });
    expect(heard[1]!.payload.pid).toBe(4001);
    expect(heard[2]!.payload.waiting).toBe(true);
    runs[0]!.end("succeeded", "A DONE");
    await flush();
    // The freed slot goes to B before A's record is made: B's start is told first.
    expect(heard.slice(3).map(({ channel, payload }) => [channel, payload.taskId])).toEqual([
      ["subagent:started", b.taskId],
      ["subagent:ended", a.taskId],
    ]);
    const ended = heard.find(({ channel }) => channel === "subagent:ended")!.payload;
    expect(ended).toMatchObject({
      taskId: a.taskId,
      status: "succeeded",
      stopReason: "stop",
      durationMs: 1000,
      usage: { turns: 1 },
    });
    expect(heard.some(({ channel }) => channel === "subagent:delivered")).toBe(false);
    tasks.confirmDelivered(a.taskId);
    tasks.confirmDelivered(a.taskId);
    expect(
      heard
        .filter(({ channel }) => channel === "subagent:delivered")
        .map(({ payload }) => [payload.taskId, payload.status]),
    ).toEqual([[a.taskId, "succeeded"]]);
  });

  it("delivers a resumed task's new run once, under the same taskId, though its envelope reads like the first", async () => {
    const tasks = makeTasks();
    const job = prepared("check it");
    tasks.dispatch(job, "p");
    runs[0]!.end("succeeded", "SAME");
    await flush();
    const firstRun = resultRun(sent[0]!.details);
    expect(tasks.confirmDelivered(job.taskId, firstRun)).toBe("first");
    clock += 5000;
    tasks.dispatch({ ...job, resumed: true }, "p");
    runs[1]!.end("succeeded", "SAME");
    await flush();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.content).toBe(sent[0]!.content);
    const secondRun = resultRun(sent[1]!.details);
    expect(secondRun).not.toBe(firstRun);
    // A late copy of the first run is a duplicate and leaves the second run's result undelivered, in the outbox.
    expect(tasks.confirmDelivered(job.taskId, firstRun)).toBe("duplicate");
    expect(readRecord(agentDir, job.taskId)!.delivered).toBe(false);
    expect(outbox()).toHaveLength(1);
    // The second run's own message is its first delivery; a copy of it is a duplicate.
    expect(tasks.confirmDelivered(job.taskId, secondRun)).toBe("first");
    expect(readRecord(agentDir, job.taskId)!.delivered).toBe(true);
    expect(outbox()).toHaveLength(0);
    expect(tasks.confirmDelivered(job.taskId, secondRun)).toBe("duplicate");
  });

  it("records a finished task on disk before delivering it, and confirms delivery when the message lands", async () => {
    const tasks = makeTasks();
    const job = prepared("do it");
    expect(tasks.dispatch(job, "parent-1")).toEqual({ started: true });
    runs[0]!.end("succeeded", "THE ANSWER");
    await flush();
    const record = readRecord(agentDir, job.taskId)!;
    expect(record).toMatchObject({
      status: "succeeded",
      output: "THE ANSWER",
      parentSessionId: "parent-1",
      delivered: false,
    });
    expect(record.envelope).toContain(`## [subagent-result] worker succeeded (taskId: ${job.taskId})`);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toBe(record.envelope);
    expect(sent[0]!.details).toMatchObject({
      taskId: job.taskId,
      status: "succeeded",
      output: "THE ANSWER",
      sessionId: job.taskId,
    });
    expect(outbox()).toEqual([`${job.taskId}.json`]);
    tasks.confirmDelivered(job.taskId);
    expect(readRecord(agentDir, job.taskId)!.delivered).toBe(true);
    expect(outbox()).toEqual([]);
  });

  it("snapshots the other tasks in flight when a task ends, never itself", async () => {
    const tasks = makeTasks();
    const a = prepared("task A");
    const b = prepared("task B");
    tasks.dispatch(a, "p");
    tasks.dispatch(b, "p");
    runs[0]!.end("succeeded", "A done");
    await flush();
    expect(sent[0]!.content).toContain(`Other tasks in flight when this task ended: 1\n- ${b.taskId} (worker): task B`);
    runs[1]!.end("succeeded", "B done");
    await flush();
    expect(sent[1]!.content).toContain("No other tasks were in flight when this task ended.");
  });

  it("queues past the concurrency limit and starts queued tasks in order as slots free", async () => {
    const tasks = makeTasks(2);
    const jobs = [prepared("1"), prepared("2"), prepared("3"), prepared("4")];
    const results = jobs.map((job) => tasks.dispatch(job, "p"));
    expect(results[0]).toEqual({ started: true });
    expect(results[1]).toEqual({ started: true });
    expect(results[2]).toEqual({ started: false, position: 1, running: 2 });
    expect(results[3]).toEqual({ started: false, position: 2, running: 2 });
    expect(tasks.counts()).toEqual({ running: 2, queued: 2, done: 0 });
    runs[1]!.end("succeeded", "two");
    await flush();
    expect(runs).toHaveLength(3);
    expect(tasks.snapshot().map((t) => [t.task, t.status])).toEqual([
      ["1", "running"],
      ["3", "running"],
      ["4", "queued"],
    ]);
  });

  it("a user cancel of a queued task ends it at once, counted from dispatch", async () => {
    const tasks = makeTasks(1);
    const released: string[] = [];
    tasks.dispatch(prepared("runs"), "p");
    const queued = prepared("waits", released);
    tasks.dispatch(queued, "p");
    clock += 5000;
    expect(tasks.cancel(queued.taskId, "user")).toBe(true);
    const record = readRecord(agentDir, queued.taskId)!;
    expect(record).toMatchObject({ status: "cancelled", stopReason: "aborted", cancelledBy: "user", durationMs: 5000 });
    expect(released).toEqual([queued.taskId]);
    expect(runs).toHaveLength(1);
    expect(sent[0]!.content).toContain("cancelled by the user");
  });

  it("an agent cancel of a running task stops it and quotes the reason", async () => {
    const tasks = makeTasks();
    const job = prepared("long");
    tasks.dispatch(job, "p");
    tasks.cancel(job.taskId, "agent", "not needed any more");
    expect(runs[0]!.stopped).toBe("aborted");
    await flush();
    const record = readRecord(agentDir, job.taskId)!;
    expect(record).toMatchObject({ status: "cancelled", cancelledBy: "agent", cancelReason: "not needed any more" });
    expect(sent[0]!.content).toContain("Cancellation reason: not needed any more");
  });

  it("keeps an undelivered result when sending fails, and redelivers it once when its session starts", async () => {
    const tasks = makeTasks();
    const job = prepared("x");
    tasks.dispatch(job, "parent-A");
    failSend = true;
    runs[0]!.end("succeeded", "late answer");
    await flush();
    expect(sent).toHaveLength(0);
    expect(readRecord(agentDir, job.taskId)!).toMatchObject({
      delivered: false,
      deliveryError: "This extension ctx is stale",
    });

    failSend = false;
    const fresh = makeTasks();
    expect(fresh.redeliver("another-session")).toBe(0);
    expect(fresh.redeliver("parent-A")).toBe(1);
    expect(sent.map((m) => m.details.taskId)).toEqual([job.taskId]);
    fresh.confirmDelivered(job.taskId);
    expect(fresh.redeliver("parent-A")).toBe(0);
    expect(sent).toHaveLength(1);
  });

  it("session shutdown stops running tasks, drops queued ones, records all as cancelled by shutdown, and sends nothing", async () => {
    const tasks = makeTasks(1);
    const running = prepared("running");
    const queued = prepared("queued");
    tasks.dispatch(running, "p");
    tasks.dispatch(queued, "p");
    await tasks.shutdown();
    expect(runs[0]!.stopped).toBe("killed_on_shutdown");
    for (const job of [running, queued]) {
      expect(readRecord(agentDir, job.taskId)).toMatchObject({
        status: "cancelled",
        stopReason: "killed_on_shutdown",
        cancelledBy: "none",
        delivered: false,
      });
    }
    expect(sent).toHaveLength(0);
    expect(outbox().sort()).toEqual([`${running.taskId}.json`, `${queued.taskId}.json`].sort());
    expect(runs).toHaveLength(1);
  });

  it("delivers from memory when the outbox folder is a file, tells the person once, and never throws", async () => {
    mkdirSync(join(agentDir, "subagent-sessions"));
    writeFileSync(join(agentDir, "subagent-sessions", ".outbox"), "in the way");
    const tasks = makeTasks();
    const [a, b] = [prepared("a"), prepared("b")];
    tasks.dispatch(a, "p");
    tasks.dispatch(b, "p");
    runs[0]!.end("succeeded", "A");
    runs[1]!.end("succeeded", "B");
    await flush();
    expect(sent.map((m) => (m.details as SubagentResultDetails).output)).toEqual(["A", "B"]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^subagent: could not save the outbox entry of worker task [0-9a-f-]{36} at .*\/subagent-sessions\/\.outbox \(EEXIST: file already exists, mkdir /,
    );
    expect(notes[0]).toContain("The result is still delivered, from memory");
    // The records themselves were written; acknowledging works and removing the entry fails quietly.
    expect(tasks.confirmDelivered(a.taskId)).toBe("first");
    expect(readRecord(agentDir, a.taskId)).toMatchObject({ delivered: true });
    expect(notes).toHaveLength(1);
  });

  it("delivers from memory when nothing can be saved (the sessions folder is a file)", async () => {
    writeFileSync(join(agentDir, "subagent-sessions"), "in the way");
    const tasks = makeTasks();
    const job = prepared("x");
    tasks.dispatch(job, "p");
    runs[0]!.end("failed", "partial");
    await flush();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toContain(`## [subagent-result] worker failed (taskId: ${job.taskId})`);
    expect(notes.map((n) => n.slice(0, 40))).toEqual([
      "subagent: could not save the record of w",
      "subagent: could not save the outbox entr",
    ]);
    // pi dropped it (Esc): the next safe moment sends it again, from memory.
    expect(tasks.afterRun("p", false)).toBe(1);
    expect(sent).toHaveLength(2);
    expect(tasks.confirmDelivered(job.taskId)).toBe("first");
    expect(tasks.afterRun("p", false)).toBe(0);
  });

  it("sends a result pi dropped again at the next safe moment, once, and calls a second copy a duplicate", async () => {
    const tasks = makeTasks();
    const jobs = [prepared("1"), prepared("2"), prepared("3"), prepared("4")];
    for (const job of jobs) tasks.dispatch(job, "p");
    tasks.delivery.runStarted();
    for (const run of runs) run.end("succeeded", "done");
    await flush();
    expect(sent).toHaveLength(4);
    // Esc: pi cleared its queue and aborted; only the oldest goes out as a probe.
    idle = true;
    expect(tasks.afterRun("p", true)).toBe(1);
    expect(sent.at(-1)!.details.taskId).toBe(jobs[0]!.taskId);
    tasks.delivery.runStarted();
    expect(tasks.confirmDelivered(jobs[0]!.taskId)).toBe("first");
    // The probe's run ended normally: the other three were dropped, and go out now, in order.
    expect(tasks.afterRun("p", false)).toBe(3);
    expect(sent.slice(-3).map((m) => m.details.taskId)).toEqual(jobs.slice(1).map((j) => j.taskId));
    for (const job of jobs.slice(1)) expect(tasks.confirmDelivered(job.taskId)).toBe("first");
    expect(tasks.confirmDelivered(jobs[1]!.taskId)).toBe("duplicate");
    expect(tasks.afterRun("p", false)).toBe(0);
    expect(sent).toHaveLength(8);
    expect(outbox()).toEqual([]);
    for (const job of jobs) expect(readRecord(agentDir, job.taskId)).toMatchObject({ delivered: true });
  });

  it("does not send again a result pi still holds in the running turn", async () => {
    const tasks = makeTasks();
    const job = prepared("x");
    tasks.dispatch(job, "p");
    tasks.delivery.runStarted();
    runs[0]!.end("succeeded", "done");
    await flush();
    // Still waiting in pi's steer queue: session-start style redelivery leaves it alone.
    expect(tasks.redeliver("p")).toBe(0);
    expect(sent).toHaveLength(1);
  });
});

describe("a task's run files that cannot be removed at its end (issue 28, item 1)", () => {
  it("delivers the result, tells the person once, and pi's process never sees the failure", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const tasks = makeTasks();
      const jobs = [prepared("one"), prepared("two")].map((job) => ({
        ...job,
        release: () => {
          throw Object.assign(new Error(`EROFS: read-only file system, unlink '${job.taskId}/agent-prompt.md'`), {
            code: "EROFS",
          });
        },
      }));
      for (const job of jobs) tasks.dispatch(job, "parent-1");
      runs[0]!.end("succeeded", "FIRST ANSWER");
      runs[1]!.end("succeeded", "SECOND ANSWER");
      await flush();
      await flush();
      expect(unhandled).toEqual([]);
      expect(sent.map((message) => (message.details as SubagentResultDetails).output)).toEqual([
        "FIRST ANSWER",
        "SECOND ANSWER",
      ]);
      expect(sent[0]!.content).not.toContain("EROFS");
      expect(readRecord(agentDir, jobs[0]!.taskId)).toMatchObject({ status: "succeeded", output: "FIRST ANSWER" });
      const cleanup = notes.filter((note) => note.includes("could not remove the run files"));
      expect(cleanup).toEqual([
        `subagent: could not remove the run files of worker task ${jobs[0]!.taskId} (EROFS: read-only file system, unlink '${jobs[0]!.taskId}/agent-prompt.md'). The result is delivered all the same; the next start of pi in this agent dir removes what is left. Later clean-up failures there are not reported again.`,
      ]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("an answer over the cap whose output.md cannot be written is still delivered, cut, saying the rest is not in a file", async () => {
    const tasks = new BackgroundTasks({
      notify: (text) => notes.push(text),
      agentDir,
      maxOutputChars: 1000,
      settings: { activityTimeoutMs: 600_000, hardTimeoutMs: 0, maxConcurrent: 2, killGraceMs: 10 },
      send: (message) => sent.push(message),
      startRun: (spec) => {
        const run = new FakeRun(spec, clock);
        runs.push(run);
        return run.handle;
      },
      now: () => clock,
    });
    const job = prepared("long");
    // A file where the task's folder should be: neither output.md nor the record can be written.
    mkdirSync(join(agentDir, "subagent-sessions"), { recursive: true });
    writeFileSync(join(agentDir, "subagent-sessions", job.taskId), "not a folder");
    tasks.dispatch(job, "parent-1");
    runs[0]!.end("succeeded", "x".repeat(5000));
    await flush();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toContain(
      "[Output cut: showing the first 1000 of 5000 characters (4000 omitted). The full output could not be saved to a file (",
    );
    expect(sent[0]!.content).not.toContain("The full output is saved in");
  });
});

describe("a background batch or chain: one combined result (issue 27)", () => {
  const wid = () => newTaskId();
  const membership = (id: string, kind: "batch" | "chain", index: number, total: number) => ({
    id,
    kind,
    index,
    total,
  });
  /** A batch of two worker parts dispatched in session "p": its id and the parts. */
  const startBatch = (tasks: BackgroundTasks, tasksText: [string, string]) => {
    const id = wid();
    const [a, b] = [prepared(tasksText[0]), prepared(tasksText[1])];
    tasks.beginWorkflow({ id, kind: "batch", agents: ["worker", "worker"], parentSessionId: "p" });
    tasks.dispatch(a, "p", true, membership(id, "batch", 1, 2));
    tasks.dispatch(b, "p", true, membership(id, "batch", 2, 2));
    return { id, a, b };
  };

  it("a batch sends nothing until every part ended, then one envelope with every part; its acknowledgement delivers the parts", async () => {
    const tasks = makeTasks();
    const { id, a, b } = startBatch(tasks, ["look at A", "look at B"]);
    runs[1]!.end("failed", "B BROKE", "error");
    await flush();
    expect(sent).toHaveLength(0);
    // Each part is recorded as it ends, with its own envelope for /subagent-result.
    expect(readRecord(agentDir, b.taskId)).toMatchObject({
      status: "failed",
      workflow: { id, kind: "batch", index: 2, total: 2 },
      delivered: false,
    });
    runs[0]!.end("succeeded", "A FOUND");
    await flush();
    expect(sent).toHaveLength(1);
    const envelope = sent[0]!.content;
    expect(envelope.split("\n")[0]).toBe(`## [subagent-result] batch of 2: 1 succeeded, 1 failed (batchId: ${id})`);
    expect(envelope).toContain(
      `### 1. worker succeeded (taskId: ${a.taskId})\n- Status: succeeded\n- Task: look at A\n`,
    );
    expect(envelope).toContain(`### 2. worker failed (taskId: ${b.taskId})\n- Status: failed\n`);
    expect(envelope).toContain("No other tasks were in flight when this batch ended.");
    expect(envelope.slice(envelope.indexOf("\n---\n"))).toMatch(
      /### 1\. worker succeeded[^\n]*\nA FOUND\n\n### 2\. worker failed[^\n]*\nB BROKE/,
    );
    expect(sent[0]!.details).toMatchObject({
      taskId: id,
      agent: "batch of 2: 1 succeeded, 1 failed",
      status: "failed",
      workflow: { kind: "batch" },
    });
    // The workflow's entry stands for its parts in the outbox.
    expect(outbox()).toEqual([`${id}.json`]);
    expect(tasks.confirmDelivered(id)).toBe("first");
    expect(outbox()).toEqual([]);
    for (const job of [a, b]) expect(readRecord(agentDir, job.taskId)!.delivered).toBe(true);
  });

  it("a delegation's end is told once its result was sent: a task on its own, and a batch as a whole, never its parts", async () => {
    const tasks = makeTasks();
    const solo = prepared("alone");
    tasks.dispatch(solo, "p", true);
    const { id } = startBatch(tasks, ["look at A", "look at B"]);
    // runs: the task, then the batch's two parts.
    runs[1]!.end("succeeded", "A");
    await flush();
    expect(ended).toEqual([]);
    runs[0]!.end("succeeded", "SOLO");
    await flush();
    expect([sent.length, ended]).toEqual([1, [solo.taskId]]);
    runs[2]!.end("succeeded", "B");
    await flush();
    expect([sent.length, ended]).toEqual([2, [solo.taskId, id]]);
  });

  it("cancelling one part of a batch leaves the others running; the envelope shows the cancelled part", async () => {
    const tasks = makeTasks();
    const { id, a } = startBatch(tasks, ["a", "b"]);
    expect(tasks.cancel(a.taskId, "user")).toBe(true);
    await flush();
    expect(runs[1]!.stopped).toBeUndefined();
    expect(sent).toHaveLength(0);
    runs[1]!.end("succeeded", "B DONE");
    await flush();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content.split("\n")[0]).toBe(
      `## [subagent-result] batch of 2: 1 succeeded, 1 cancelled (batchId: ${id})`,
    );
    expect(sent[0]!.content).toContain("This task was cancelled by the user (/subagent-cancel).");
  });

  it("cancelling the workflow stops every part in flight; a chain then starts no further step", async () => {
    const tasks = makeTasks();
    const id = wid();
    const first = prepared("step one");
    const continued: number[] = [];
    tasks.beginWorkflow({ id, kind: "chain", agents: ["worker", "worker"], parentSessionId: "p" }, (index) => {
      continued.push(index);
      return { refused: "not expected" };
    });
    tasks.dispatch(first, "p", true, membership(id, "chain", 1, 2));
    expect(tasks.cancelWorkflow(id, "agent", "the plan changed")).toBe(1);
    await flush();
    expect(continued).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content.split("\n")[0]).toBe(
      `## [subagent-result] chain of 2: ended at step 1 (worker cancelled); 1 step not run (chainId: ${id})`,
    );
    expect(sent[0]!.content).toContain("### Step 2. worker not run");
    expect(tasks.cancelWorkflow(id, "agent")).toBeUndefined();
  });

  it("a chain starts its next step with the record of the one before, and a refused step ends it with the refusal", async () => {
    const tasks = makeTasks();
    const id = wid();
    const [one, two] = [prepared("one"), prepared("two")];
    const previous: string[] = [];
    tasks.beginWorkflow(
      { id, kind: "chain", agents: ["worker", "worker", "reviewer"], parentSessionId: "p" },
      (index, before) => {
        previous.push(before.output);
        return index === 1 ? { prepared: two, askPerson: true } : { refused: 'Unknown agent "reviewer".' };
      },
    );
    tasks.dispatch(one, "p", true, membership(id, "chain", 1, 3));
    runs[0]!.end("succeeded", "FIRST OUTPUT");
    await flush();
    expect(previous).toEqual(["FIRST OUTPUT"]);
    expect(runs).toHaveLength(2);
    expect(readRecord(agentDir, one.taskId)!.workflow).toEqual({ id, kind: "chain", index: 1, total: 3 });
    expect(sent).toHaveLength(0);
    runs[1]!.end("succeeded", "SECOND OUTPUT");
    await flush();
    expect(readRecord(agentDir, two.taskId)!.workflow).toEqual({ id, kind: "chain", index: 2, total: 3 });
    expect(sent).toHaveLength(1);
    const envelope = sent[0]!.content;
    expect(envelope.split("\n")[0]).toBe(
      `## [subagent-result] chain of 3: ended at step 3 (reviewer refused) (chainId: ${id})`,
    );
    expect(envelope).toContain('### Step 3. reviewer refused\n- Refused: Unknown agent "reviewer".');
    expect(envelope).toContain("SECOND OUTPUT");
  });

  it("a session shutdown mid-batch records the combined result unsent; the next session start delivers it once", async () => {
    const tasks = makeTasks();
    const { id, b } = startBatch(tasks, ["a", "b"]);
    runs[0]!.end("succeeded", "A");
    await flush();
    await tasks.shutdown();
    expect(sent).toHaveLength(0);
    expect(outbox()).toEqual([`${id}.json`]);
    forgetExitHooksForTests();
    const fresh = makeTasks();
    expect(fresh.redeliver("p")).toBe(1);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content.split("\n")[0]).toBe(
      `## [subagent-result] batch of 2: 1 succeeded, 1 cancelled (batchId: ${id})`,
    );
    expect(fresh.confirmDelivered(id)).toBe("first");
    expect(fresh.redeliver("p")).toBe(0);
    expect(readRecord(agentDir, b.taskId)).toMatchObject({ status: "cancelled", cancelledBy: "none", delivered: true });
  });
});
