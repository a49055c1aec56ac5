import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROMPT_DIR_PREFIX } from "../../../src/run/prompt-dir.js";
import { LOCK_FILE_NAME } from "../../../src/run/session-lock.js";
import { lockedTaskIds, startupSweepHasWork } from "../../../src/tasks/startup-work.js";

const TASK = "0190a0b0-0000-7000-8000-000000000001";
const OTHER = "0190a0b0-0000-7000-8000-000000000002";

describe("startupSweepHasWork", () => {
  let root: string;
  let agent: string;
  let temp: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "startup-work-"));
    agent = join(root, "agent");
    temp = join(root, "tmp");
    mkdirSync(agent);
    mkdirSync(temp);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("finds nothing to do on a fresh agent dir and temp folder", () => {
    expect(startupSweepHasWork(agent, temp)).toBe(false);
  });

  it("finds a task folder holding a run lock, and only such folders", () => {
    mkdirSync(join(agent, "subagent-sessions", TASK), { recursive: true });
    mkdirSync(join(agent, "subagent-sessions", OTHER), { recursive: true });
    mkdirSync(join(agent, "subagent-sessions", "not-a-task"), { recursive: true });
    writeFileSync(join(agent, "subagent-sessions", "not-a-task", LOCK_FILE_NAME), "{}");
    expect(startupSweepHasWork(agent, temp)).toBe(false);
    writeFileSync(join(agent, "subagent-sessions", OTHER, LOCK_FILE_NAME), "{}");
    expect(lockedTaskIds(agent)).toEqual([OTHER]);
    expect(startupSweepHasWork(agent, temp)).toBe(true);
  });

  it("finds a prompt folder of ours in the temp folder", () => {
    mkdirSync(join(temp, "someone-elses-folder"));
    expect(startupSweepHasWork(agent, temp)).toBe(false);
    mkdirSync(join(temp, `${PROMPT_DIR_PREFIX}123-456-abcdef`));
    expect(startupSweepHasWork(agent, temp)).toBe(true);
  });
});
