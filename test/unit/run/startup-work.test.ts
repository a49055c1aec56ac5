import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCK_FILE_NAME } from "../../../src/run/session-files.ts";
import {
  lockedTaskIds,
  markRunning,
  runningIndexDir,
  startupSweepHasWork,
  unmarkRunning,
} from "../../../src/run/startup-work.ts";

const TASK = "0190a0b0-0000-7000-8000-000000000001";
const OTHER = "0190a0b0-0000-7000-8000-000000000002";

describe("startupSweepHasWork", () => {
  let root: string;
  let agent: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "startup-work-"));
    agent = join(root, "agent");
    mkdirSync(agent);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const sessions = () => join(agent, "subagent-sessions");
  const lockIn = (taskId: string) => {
    mkdirSync(join(sessions(), taskId), { recursive: true });
    writeFileSync(join(sessions(), taskId, LOCK_FILE_NAME), "{}");
  };

  it("finds nothing to do on a fresh agent dir, and creates nothing there", () => {
    expect(startupSweepHasWork(agent)).toBe(false);
    expect(existsSync(sessions())).toBe(false);
  });

  it("without a running index (an older version's agent dir), finds a task folder holding a run lock, and only such folders", () => {
    mkdirSync(join(sessions(), TASK), { recursive: true });
    mkdirSync(join(sessions(), "not-a-task"), { recursive: true });
    writeFileSync(join(sessions(), "not-a-task", LOCK_FILE_NAME), "{}");
    lockIn(OTHER);
    expect(lockedTaskIds(agent)).toEqual([OTHER]);
    expect(startupSweepHasWork(agent)).toBe(true);
    // Locks are left outside the index, so it is not started yet: the next start looks into every folder again.
    expect(existsSync(runningIndexDir(agent))).toBe(false);
  });

  it("without a running index and no lock in any task folder, starts the index; from then on only the index is read", () => {
    mkdirSync(join(sessions(), TASK), { recursive: true });
    expect(startupSweepHasWork(agent)).toBe(false);
    expect(readdirSync(runningIndexDir(agent))).toEqual([]);
    // A lock the index does not name is not looked for (no task folder is opened): runs of this version are in it.
    lockIn(OTHER);
    expect(lockedTaskIds(agent)).toEqual([]);
    expect(startupSweepHasWork(agent)).toBe(false);
  });

  it("with the index, a run in it is work: its lock to look at, or, once the lock is gone, its entry to drop", () => {
    markRunning(agent, TASK);
    lockIn(TASK);
    expect(lockedTaskIds(agent)).toEqual([TASK]);
    expect(startupSweepHasWork(agent)).toBe(true);
    rmSync(join(sessions(), TASK, LOCK_FILE_NAME));
    expect(lockedTaskIds(agent)).toEqual([]);
    expect(startupSweepHasWork(agent)).toBe(true);
    unmarkRunning(agent, TASK);
    expect(startupSweepHasWork(agent)).toBe(false);
  });

  it("keeps a run's index entry while its task folder holds a lock (a new run of the session may hold it already)", () => {
    markRunning(agent, TASK);
    lockIn(TASK);
    unmarkRunning(agent, TASK);
    expect(readdirSync(runningIndexDir(agent))).toEqual([TASK]);
  });
});
