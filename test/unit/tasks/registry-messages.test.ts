import { describe, expect, it } from "vitest";
import { initialRunState, type RunOutcome, type StopCause } from "../../../src/run/event-reducer.ts";
import type { RunHandle, RunSpec, SteerResult } from "../../../src/run/runner.ts";
import {
  MAX_AGENT_MESSAGES_PER_TASK,
  promptWithQueuedMessages,
  TaskRegistry,
  type FinishedTask,
  type TaskLaunch,
} from "../../../src/tasks/registry.ts";

/** A run the test drives: `over` makes it refuse stops and steers, as a run whose answer is complete does. */
class ScriptedRun {
  over = false;
  steerResult: SteerResult = "sent";
  readonly steered: string[] = [];
  stopped?: StopCause;
  resolve!: (outcome: RunOutcome) => void;
  readonly handle: RunHandle;
  constructor(readonly spec: RunSpec) {
    const done = new Promise<RunOutcome>((resolve) => (this.resolve = resolve));
    const run = this;
    this.handle = {
      pid: undefined,
      state: initialRunState(0),
      startedAt: 0,
      done,
      stop: (cause) => {
        if (run.over || run.stopped) return false;
        run.stopped = cause;
        return true;
      },
      get over() {
        return run.over;
      },
      steer: (text) => {
        if (run.over) return "ended";
        if (run.steerResult === "sent") run.steered.push(text);
        return run.steerResult;
      },
    };
  }
  end(status: RunOutcome["status"], output: string): void {
    this.resolve({
      status,
      exitCode: 0,
      signal: null,
      output,
      usage: { turns: 1, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
      startedAt: 0,
      finishedAt: 1,
      durationMs: 1,
      stderrTail: "",
    });
  }
}

function setUp(maxConcurrent = 1) {
  const runs: ScriptedRun[] = [];
  const finished: FinishedTask[] = [];
  let clock = 1000;
  const registry = new TaskRegistry({
    maxConcurrent,
    startRun: (spec) => {
      const run = new ScriptedRun(spec);
      runs.push(run);
      return run.handle;
    },
    onFinished: (task) => finished.push(task),
    now: () => clock++,
  });
  const launch = (taskId: string): TaskLaunch => ({
    taskId,
    agent: "worker",
    task: `task ${taskId}`,
    sessionFile: `/s/${taskId}.jsonl`,
    cwd: "/w",
    release: () => {},
    spec: () => ({
      command: { command: "pi", args: [], env: {}, mode: "rpc", prompt: `Task: task ${taskId}` },
      cwd: "/w",
      activityTimeoutMs: 0,
      hardTimeoutMs: 0,
    }),
  });
  return { registry, runs, finished, launch };
}

describe("TaskRegistry.message", () => {
  it("steers a running task with the text marked as the main agent's, and records it", () => {
    const { registry, runs, launch } = setUp();
    registry.enqueue(launch("a"));
    expect(registry.message("a", "agent", "also check b.ts")).toBe("steered");
    expect(runs[0]!.steered).toEqual([
      "[Message from the main agent (the agent that dispatched you), sent while you were working]\nalso check b.ts",
    ]);
    expect(registry.get("a")!.messages).toEqual([
      { at: expect.any(Number), from: "agent", text: "also check b.ts", delivery: "steer" },
    ]);
  });

  it("appends a queued task's messages to its prompt when it starts", async () => {
    const { registry, runs, launch, finished } = setUp(1);
    registry.enqueue(launch("a"));
    registry.enqueue(launch("b"));
    expect(registry.message("b", "user", "use tabs")).toBe("queued");
    expect(runs).toHaveLength(1);
    runs[0]!.end("succeeded", "done");
    await Promise.resolve();
    await Promise.resolve();
    expect(runs).toHaveLength(2);
    expect(runs[1]!.spec.command.prompt).toBe(
      "Task: task b\n\n[Message from the user, via the main agent's session, sent before you started]\nuse tabs",
    );
    runs[1]!.end("succeeded", "ok");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(finished.find((task) => task.launch.taskId === "b")!.messages).toEqual([
      expect.objectContaining({ from: "user", delivery: "queued", text: "use tabs" }),
    ]);
  });

  it("takes at most MAX_AGENT_MESSAGES_PER_TASK messages from the main agent per task (queued ones count); the person's are not limited", () => {
    const { registry, runs, launch } = setUp(1);
    registry.enqueue(launch("a"));
    registry.enqueue(launch("b"));
    for (let i = 0; i < MAX_AGENT_MESSAGES_PER_TASK; i++)
      expect(registry.message("a", "agent", `m${i}`)).toBe("steered");
    expect(registry.message("a", "agent", "one too many")).toBe("limit");
    expect(registry.message("a", "user", "from the person")).toBe("steered");
    expect(runs[0]!.steered).toHaveLength(MAX_AGENT_MESSAGES_PER_TASK + 1);
    for (let i = 0; i < MAX_AGENT_MESSAGES_PER_TASK; i++) registry.message("b", "agent", `q${i}`);
    expect(registry.message("b", "agent", "queued, one too many")).toBe("limit");
    expect(registry.get("b")!.messages).toHaveLength(MAX_AGENT_MESSAGES_PER_TASK);
  });

  it("refuses finished, stopping, unknown and JSON-child tasks without recording anything", () => {
    const { registry, runs, launch } = setUp(3);
    registry.enqueue(launch("over"));
    registry.enqueue(launch("json"));
    registry.enqueue(launch("stopping"));
    runs[0]!.over = true;
    runs[1]!.steerResult = "unsupported";
    registry.cancel("stopping", "user");
    expect(registry.message("over", "agent", "x")).toBe("finished");
    expect(registry.message("json", "agent", "x")).toBe("unsupported");
    expect(registry.message("stopping", "agent", "x")).toBe("finished");
    expect(registry.message("nope", "agent", "x")).toBe("unknown");
    for (const id of ["over", "json", "stopping"]) expect(registry.get(id)!.messages).toEqual([]);
  });
});

describe("TaskRegistry.cancel racing the child's own end (issue 13 item 6)", () => {
  it("refuses to cancel a run whose answer is complete: no cancel is recorded, the result stays succeeded", async () => {
    const { registry, runs, launch, finished } = setUp();
    registry.enqueue(launch("a"));
    runs[0]!.over = true;
    expect(registry.cancel("a", "agent", "changed my mind")).toBe(false);
    expect(registry.get("a")!.cancelRequested).toBeUndefined();
    expect(runs[0]!.stopped).toBeUndefined();
    runs[0]!.end("succeeded", "the answer");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(finished[0]).toMatchObject({ cancelledBy: undefined, outcome: { status: "succeeded" } });
  });

  it("cancel-all counts only the tasks it really cancelled", () => {
    const { registry, runs, launch } = setUp(2);
    registry.enqueue(launch("a"));
    registry.enqueue(launch("b"));
    runs[0]!.over = true;
    expect(registry.cancelAll("user")).toBe(1);
    expect(runs[1]!.stopped).toBe("aborted");
  });
});

describe("promptWithQueuedMessages", () => {
  it("keeps the prompt first and marks each message", () => {
    expect(promptWithQueuedMessages("Task: t", [{ at: 1, from: "agent", text: "m1", delivery: "queued" }])).toBe(
      "Task: t\n\n[Message from the main agent (the agent that dispatched you), sent before you started]\nm1",
    );
  });
});
