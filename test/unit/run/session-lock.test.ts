import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createSessionFile,
  sessionFileExists,
  sessionFilePath,
  sessionHeaderLine,
  taskDir,
  acquireSessionLock,
  isLockLive,
  LOCK_FILE_NAME,
  readSessionLock,
} from "../../../src/run/session-files.ts";
import { taskSources } from "../../../src/commands/task-lookup.ts";
import { processStartTime } from "../../../src/shared/proc-identity.ts";

const TASK = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
let agentDir: string;

beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "pi-subagent-lock-"));
  createSessionFile(agentDir, TASK, "/work", new Date("2026-01-02T03:04:05.000Z"));
});

afterEach(() => rmSync(agentDir, { recursive: true, force: true }));

/** The pid of a process that has certainly exited (ran and was reaped). */
function deadPid(): number {
  const result = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(result.stdout);
}

describe("session file", () => {
  it("lives in <agent dir>/subagent-sessions/<id>/session.jsonl and holds pi's session header with our id", () => {
    const file = sessionFilePath(agentDir, TASK);
    expect(file).toBe(join(agentDir, "subagent-sessions", TASK, "session.jsonl"));
    expect(sessionFileExists(agentDir, TASK)).toBe(true);
    const header = JSON.parse(readFileSync(file, "utf8"));
    expect(header).toEqual({
      type: "session",
      version: 3,
      id: TASK,
      timestamp: "2026-01-02T03:04:05.000Z",
      cwd: "/work",
    });
    expect(sessionHeaderLine(TASK, "/w", new Date(0)).endsWith("}\n")).toBe(true);
  });

  it("is never overwritten by a second create", () => {
    expect(() => createSessionFile(agentDir, TASK, "/elsewhere")).toThrow();
    expect(JSON.parse(readFileSync(sessionFilePath(agentDir, TASK), "utf8")).cwd).toBe("/work");
  });

  it("does not exist for an unknown id", () => {
    expect(sessionFileExists(agentDir, "0190a1b2-c3d4-7e5f-8a9b-ffffffffffff")).toBe(false);
  });
});

describe("acquireSessionLock", () => {
  const lockFile = () => join(taskDir(agentDir, TASK), LOCK_FILE_NAME);

  it("acquires a free session and writes who holds it", () => {
    const lock = acquireSessionLock(agentDir, TASK, "coder");
    expect(lock.acquired).toBe(true);
    const content = JSON.parse(readFileSync(lockFile(), "utf8"));
    expect(content).toMatchObject({ pid: process.pid, agent: "coder" });
    expect(typeof content.since).toBe("number");
  });

  it("puts the task in the running index while it holds the lock, and takes it out on release", () => {
    const index = join(agentDir, "subagent-sessions", ".running");
    const lock = acquireSessionLock(agentDir, TASK, "coder");
    expect(readdirSync(index)).toEqual([TASK]);
    if (lock.acquired) lock.release();
    expect(readdirSync(index)).toEqual([]);
  });

  it("refuses a second run while the first holds it, naming the holder", () => {
    const first = acquireSessionLock(agentDir, TASK, "coder");
    const second = acquireSessionLock(agentDir, TASK, "writer");
    expect(first.acquired).toBe(true);
    expect(second).toEqual({ acquired: false, holder: "agent coder, in this pi" });
  });

  it("names another live pi process as the holder", () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, agent: "explore", since: 1 }));
    expect(acquireSessionLock(agentDir, TASK, "coder")).toEqual({
      acquired: false,
      holder: `agent explore, in pi process ${process.ppid}`,
    });
  });

  it("takes over a stale lock whose owner died", () => {
    const pid = deadPid();
    writeFileSync(lockFile(), JSON.stringify({ pid, agent: "explore", since: 1 }));
    const lock = acquireSessionLock(agentDir, TASK, "coder");
    expect(lock.acquired).toBe(true);
    expect(JSON.parse(readFileSync(lockFile(), "utf8"))).toMatchObject({ pid: process.pid, agent: "coder" });
  });

  it("takes over a lock file that is unreadable garbage", () => {
    writeFileSync(lockFile(), "{half");
    expect(acquireSessionLock(agentDir, TASK, "coder").acquired).toBe(true);
  });

  it("release frees the session for the next run, and is idempotent", () => {
    const first = acquireSessionLock(agentDir, TASK, "coder");
    if (!first.acquired) throw new Error("expected the lock");
    first.release();
    expect(existsSync(lockFile())).toBe(false);
    const second = acquireSessionLock(agentDir, TASK, "coder");
    expect(second.acquired).toBe(true);
    // Releasing the first one again must not free the second holder's lock.
    first.release();
    expect(existsSync(lockFile())).toBe(true);
    expect(acquireSessionLock(agentDir, TASK, "writer").acquired).toBe(false);
  });
});

describe("run lock identities (pid plus start time)", () => {
  const lockFile = () => join(taskDir(agentDir, TASK), LOCK_FILE_NAME);
  const liveStart = (pid: number) => processStartTime(pid)!;

  it("stores the owner's start time, and the child's once it is spawned", () => {
    const lock = acquireSessionLock(agentDir, TASK, "coder", {
      task: "Fix it",
      mode: "async",
      parentSessionId: "main-1",
      cwd: "/w",
    });
    if (!lock.acquired) throw new Error("expected the lock");
    lock.childStarted(process.ppid);
    expect(readSessionLock(agentDir, TASK)).toMatchObject({
      pid: process.pid,
      pidStart: liveStart(process.pid),
      childPid: process.ppid,
      childStart: liveStart(process.ppid),
      task: "Fix it",
      mode: "async",
      parentSessionId: "main-1",
      cwd: "/w",
    });
  });

  it("takes over a stale lock whose pid now belongs to another process (a reused pid)", () => {
    // The pid is alive (our parent), but the start time is not that process's: the owner is long gone.
    writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, pidStart: "1", agent: "explore", since: 1 }));
    expect(isLockLive(readSessionLock(agentDir, TASK)!)).toBe(false);
    expect(
      taskSources(
        () => undefined,
        () => agentDir,
      ).runLockHeld(TASK),
    ).toBe(false);
    expect(acquireSessionLock(agentDir, TASK, "coder").acquired).toBe(true);
  });

  it("stays held while an orphaned child still writes the session, naming it", () => {
    const pid = deadPid();
    writeFileSync(
      lockFile(),
      JSON.stringify({ pid, agent: "explore", since: 1, childPid: process.ppid, childStart: liveStart(process.ppid) }),
    );
    expect(
      taskSources(
        () => undefined,
        () => agentDir,
      ).runLockHeld(TASK),
    ).toBe(true);
    expect(acquireSessionLock(agentDir, TASK, "coder")).toEqual({
      acquired: false,
      holder: `agent explore, in child process ${process.ppid} whose pi has ended`,
    });
  });

  it("is free once both the owner and the child are gone", () => {
    const owner = deadPid();
    const child = deadPid();
    writeFileSync(
      lockFile(),
      JSON.stringify({ pid: owner, pidStart: "5", agent: "explore", since: 1, childPid: child, childStart: "6" }),
    );
    expect(acquireSessionLock(agentDir, TASK, "coder").acquired).toBe(true);
  });
});

describe("planted state files in a task folder (issue 28, item 6)", () => {
  it("a session.jsonl that is a link is no session to resume: a child would append through it to the link's target", () => {
    const taskId = "0190aaaa-bbbb-7ccc-8ddd-eeeeffff0001";
    mkdirSync(taskDir(agentDir, taskId), { recursive: true });
    const outside = join(agentDir, "someone-elses.jsonl");
    writeFileSync(outside, `${sessionHeaderLine(taskId, agentDir, new Date())}`);
    symlinkSync(outside, sessionFilePath(agentDir, taskId));
    expect(sessionFileExists(agentDir, taskId)).toBe(false);
  });

  it("a run.lock that is a link is not read (a live-looking lock elsewhere cannot block a run), and is taken over, its target untouched", () => {
    const taskId = "0190aaaa-bbbb-7ccc-8ddd-eeeeffff0002";
    mkdirSync(taskDir(agentDir, taskId), { recursive: true });
    const outside = join(agentDir, "elsewhere.json");
    const theirs = JSON.stringify({
      pid: process.pid,
      pidStart: processStartTime(process.pid),
      agent: "other",
      since: 1,
    });
    writeFileSync(outside, theirs);
    symlinkSync(outside, join(taskDir(agentDir, taskId), LOCK_FILE_NAME));
    expect(readSessionLock(agentDir, taskId)).toBeUndefined();
    const lock = acquireSessionLock(agentDir, taskId, "worker");
    expect(lock.acquired).toBe(true);
    expect(readFileSync(outside, "utf8")).toBe(theirs);
    if (lock.acquired) lock.release();
  });
});
