import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pendingFor } from "../../../src/delivery/outbox.ts";
import type { ProcessIdentity } from "../../../src/shared/proc-identity.ts";
import {
  agentPromptPath,
  writeAgentPrompt,
  createSessionFile,
  taskDir,
  LOCK_FILE_NAME,
} from "../../../src/run/session-files.ts";
import { readRecord, writeRecord } from "../../../src/records/record-store.ts";
import {
  reapedNotice,
  reapOrphanedTasks,
  reapOrphanedTasksInSlices,
  type SweepDeps,
} from "../../../src/delivery/orphan-sweep.ts";
import { markRunning, startupSweepHasWork } from "../../../src/run/startup-work.ts";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import type { TaskRecord } from "../../../src/records/record.ts";

let agentDir: string;
beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "pi-subagent-sweep-"));
});
afterEach(() => rmSync(agentDir, { recursive: true, force: true }));

const DEAD_OWNER = 111;
const LIVE_OWNER = 222;

function lockedTask(owner: number, extra: Record<string, unknown> = {}): string {
  const taskId = newTaskId();
  createSessionFile(agentDir, taskId, "/w");
  const lock = {
    pid: owner,
    pidStart: "9",
    agent: "worker",
    since: 1000,
    task: "Long job",
    mode: "async",
    parentSessionId: "main-1",
    cwd: "/w",
    ...extra,
  };
  writeFileSync(join(taskDir(agentDir, taskId), LOCK_FILE_NAME), JSON.stringify(lock));
  return taskId;
}

/** The record of a run that ended and was recorded by its pi. */
function finishedRecord(taskId: string): TaskRecord {
  return {
    version: 1,
    taskId,
    agent: "worker",
    task: "t",
    mode: "sync",
    status: "succeeded",
    exitCode: 0,
    usage: { turns: 1, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
    durationMs: 1,
    dispatchedAt: 1000,
    finishedAt: 1500,
    output: "done",
    sessionFile: "s",
    cwd: "/w",
    delivered: true,
  };
}

function deps(): SweepDeps & { killed: Array<[string, ProcessIdentity | undefined]> } {
  const killed: Array<[string, ProcessIdentity | undefined]> = [];
  return {
    killed,
    now: () => 5000,
    alive: (identity) => identity.pid === LIVE_OWNER,
    killTask: (taskId, child) => killed.push([taskId, child]),
    settings: { activityTimeoutMs: 600_000, hardTimeoutMs: 0, maxConcurrent: 8, killGraceMs: 5000 },
  };
}

describe("reapOrphanedTasks", () => {
  it("ends, records as failed and queues for delivery a run whose pi died, exactly once", () => {
    const taskId = lockedTask(DEAD_OWNER, { childPid: 333, childStart: "10" });
    const d = deps();
    expect(reapOrphanedTasks(agentDir, d)).toEqual([{ taskId, agent: "worker", task: "Long job" }]);
    expect(d.killed).toEqual([[taskId, { pid: 333, start: "10" }]]);
    const record = readRecord(agentDir, taskId)!;
    expect(record).toMatchObject({
      status: "failed",
      errorMessage: "its pi process ended",
      stopReason: "owner_ended",
      mode: "async",
      task: "Long job",
      parentSessionId: "main-1",
      durationMs: 4000,
      delivered: false,
    });
    expect(record.envelope).toContain(`## [subagent-result] worker failed (taskId: ${taskId})`);
    expect(record.envelope).toContain("- Error: its pi process ended (stop reason: owner_ended)");
    expect(pendingFor(agentDir, "main-1")).toEqual([taskId]);
    expect(readdirSync(taskDir(agentDir, taskId)).filter((name) => name.startsWith(LOCK_FILE_NAME))).toEqual([]);
    // Reported once: the lock is gone, so a second start finds nothing.
    expect(reapOrphanedTasks(agentDir, deps())).toEqual([]);
    expect(reapedNotice({ taskId, agent: "worker", task: "Long job" })).toBe(
      `Subagent task ${taskId} (worker) failed: its pi process ended while it was running.`,
    );
  });

  it("removes the folder of a warm child whose pi is gone, ending what of it runs; a live pi's stays", () => {
    const warmOf = (owner: number) => {
      const taskId = newTaskId();
      createSessionFile(agentDir, taskId, "/w");
      writeAgentPrompt(agentDir, taskId, "BODY");
      writeFileSync(join(taskDir(agentDir, taskId), "warm.lock"), JSON.stringify({ pid: owner, pidStart: "9" }));
      markRunning(agentDir, taskId);
      return taskId;
    };
    const dead = warmOf(DEAD_OWNER);
    const live = warmOf(LIVE_OWNER);
    const d = deps();
    expect(reapOrphanedTasks(agentDir, d)).toEqual([]);
    expect(d.killed).toEqual([[dead, undefined]]);
    expect(existsSync(taskDir(agentDir, dead))).toBe(false);
    expect(readRecord(agentDir, dead)).toBeUndefined();
    expect(existsSync(join(taskDir(agentDir, live), "warm.lock"))).toBe(true);
    expect(readdirSync(join(agentDir, "subagent-sessions", ".running"))).toEqual([live]);
  });

  it("takes a planted warm claim out of a finished task's folder, keeping its files, and drops its index entry", () => {
    const taskId = newTaskId();
    createSessionFile(agentDir, taskId, "/w");
    writeRecord(agentDir, finishedRecord(taskId));
    writeFileSync(join(taskDir(agentDir, taskId), "warm.lock"), JSON.stringify({ pid: DEAD_OWNER, pidStart: "9" }));
    const garbled = newTaskId();
    createSessionFile(agentDir, garbled, "/w");
    writeFileSync(join(taskDir(agentDir, garbled), "warm.lock"), "not json");
    for (const id of [taskId, garbled]) markRunning(agentDir, id);
    const d = deps();
    expect(reapOrphanedTasks(agentDir, d)).toEqual([]);
    expect(d.killed).toEqual([]);
    expect(readRecord(agentDir, taskId)?.taskId).toBe(taskId);
    expect(readdirSync(taskDir(agentDir, taskId)).sort()).toEqual(["record.json", "session.jsonl"]);
    expect(readdirSync(taskDir(agentDir, garbled))).toEqual(["session.jsonl"]);
    expect(readdirSync(join(agentDir, "subagent-sessions", ".running"))).toEqual([]);
  });

  it("with the running index: reaps the dead pi's run, drops entries whose lock is gone, keeps a live run's", () => {
    const dead = lockedTask(DEAD_OWNER);
    const live = lockedTask(LIVE_OWNER);
    const gone = newTaskId();
    for (const taskId of [dead, live, gone]) markRunning(agentDir, taskId);
    expect(reapOrphanedTasks(agentDir, deps()).map((task) => task.taskId)).toEqual([dead]);
    expect(readdirSync(join(agentDir, "subagent-sessions", ".running"))).toEqual([live]);
    expect(startupSweepHasWork(agentDir)).toBe(true);
  });

  it("removes the agent's body a reaped run was started with, with its lock, and keeps a live run's", () => {
    const dead = lockedTask(DEAD_OWNER);
    const live = lockedTask(LIVE_OWNER);
    for (const taskId of [dead, live]) writeAgentPrompt(agentDir, taskId, "You are the worker.\n");
    expect(reapOrphanedTasks(agentDir, deps()).map((task) => task.taskId)).toEqual([dead]);
    expect(existsSync(agentPromptPath(agentDir, dead))).toBe(false);
    expect(existsSync(agentPromptPath(agentDir, live))).toBe(true);
  });

  it("leaves runs of a live pi alone", () => {
    const taskId = lockedTask(LIVE_OWNER);
    expect(reapOrphanedTasks(agentDir, deps())).toEqual([]);
    expect(existsSync(join(taskDir(agentDir, taskId), LOCK_FILE_NAME))).toBe(true);
    expect(readRecord(agentDir, taskId)).toBeUndefined();
  });

  it("only removes the lock when the dead pi had recorded the run itself", () => {
    const taskId = lockedTask(DEAD_OWNER, { mode: "sync" });
    const recorded = finishedRecord(taskId);
    writeRecord(agentDir, recorded);
    expect(reapOrphanedTasks(agentDir, deps())).toEqual([]);
    expect(readRecord(agentDir, taskId)).toEqual(recorded);
    expect(existsSync(join(taskDir(agentDir, taskId), LOCK_FILE_NAME))).toBe(false);
  });

  it("puts a blocking run's result in the outbox too, for its continued session (its model saw only `No result provided`)", () => {
    const taskId = lockedTask(DEAD_OWNER, { mode: "sync" });
    expect(reapOrphanedTasks(agentDir, deps())).toHaveLength(1);
    const record = readRecord(agentDir, taskId)!;
    expect(record).toMatchObject({
      mode: "sync",
      status: "failed",
      errorMessage: "its pi process ended",
      delivered: false,
    });
    expect(record.envelope).toContain(`## [subagent-result] worker failed (taskId: ${taskId})`);
    expect(record.envelope).toContain("- Error: its pi process ended (stop reason: owner_ended)");
    expect(record.envelope).toContain(`Its session file: ${record.sessionFile}`);
    expect(pendingFor(agentDir, "main-1")).toEqual([taskId]);
  });

  it("leaves a run without a main session (no parentSessionId) out of the outbox", () => {
    const taskId = lockedTask(DEAD_OWNER, { mode: "sync", parentSessionId: undefined });
    expect(reapOrphanedTasks(agentDir, deps())).toHaveLength(1);
    expect(readRecord(agentDir, taskId)!.envelope).toBeUndefined();
    expect(pendingFor(agentDir, "main-1")).toEqual([]);
  });
});

describe("reapOrphanedTasksInSlices (issue 28, item 10)", () => {
  it("hands the event loop back between slices, and reports each run as soon as it is recorded", async () => {
    const ids = Array.from({ length: 25 }, () => lockedTask(DEAD_OWNER));
    const events: string[] = [];
    await reapOrphanedTasksInSlices(agentDir, deps(), (task) => events.push(`reaped ${task.taskId}`), {
      maxTasks: 10,
      maxMs: Number.POSITIVE_INFINITY,
      pause: async () => {
        // By each pause, every run of the slice before is recorded and was reported.
        events.push(`pause with ${ids.filter((id) => readRecord(agentDir, id)?.status === "failed").length} recorded`);
      },
    });
    expect(events.filter((event) => event.startsWith("pause"))).toEqual([
      "pause with 10 recorded",
      "pause with 20 recorded",
    ]);
    expect(events.filter((event) => event.startsWith("reaped")).sort()).toEqual(ids.map((id) => `reaped ${id}`).sort());
    expect(events.indexOf("pause with 10 recorded")).toBe(10);
    for (const id of ids) expect(existsSync(join(taskDir(agentDir, id), LOCK_FILE_NAME))).toBe(false);
  });

  it("by default a slice ends when its time is up, even for fast runs", async () => {
    for (let n = 0; n < 6; n++) lockedTask(DEAD_OWNER);
    let now = 0;
    let pauses = 0;
    // Each reaped run takes 4 ms of the fake clock: 10 ms slices hold 3 runs each.
    const d = { ...deps(), killTask: () => void (now += 4) };
    await reapOrphanedTasksInSlices(agentDir, d, () => undefined, {
      clock: () => now,
      pause: async () => void (pauses += 1),
    });
    expect(pauses).toBe(1);
  });
});
