import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyUsage } from "../../../src/shared/text.ts";
import {
  listRecentRecords,
  listTaskIds,
  readRecord,
  recordPath,
  writeRecord,
} from "../../../src/records/record-store.ts";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import { v7 } from "uuid";
import type { TaskRecord } from "../../../src/records/record.ts";

let agentDir: string;

beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "pi-subagent-records-"));
});
afterEach(() => rmSync(agentDir, { recursive: true, force: true }));

function record(taskId: string, fields: Partial<TaskRecord> = {}): TaskRecord {
  return {
    version: 1,
    taskId,
    agent: "coder",
    task: "Refactor",
    mode: "async",
    status: "succeeded",
    exitCode: 0,
    stopReason: "stop",
    usage: { ...emptyUsage(), turns: 3, input: 900, output: 120, cost: 0.001 },
    durationMs: 42_000,
    dispatchedAt: 1,
    startedAt: 2,
    finishedAt: 42_002,
    output: "Done: 3 files changed.\nSee the diff.",
    sessionFile: `/a/${taskId}/session.jsonl`,
    cwd: "/work",
    envelope: "## [subagent-result] coder succeeded",
    delivered: false,
    ...fields,
  };
}

describe("record store", () => {
  it("writes a record to <agent dir>/subagent-sessions/<id>/record.json and reads it back unchanged", () => {
    const id = newTaskId();
    const written = record(id, { errorMessage: "none", cancelledBy: "agent", cancelReason: "obsolete" });
    writeRecord(agentDir, written);
    expect(recordPath(agentDir, id)).toBe(join(agentDir, "subagent-sessions", id, "record.json"));
    expect(readRecord(agentDir, id)).toEqual(written);
    expect(statSync(recordPath(agentDir, id)).mode & 0o777).toBe(0o600);
  });

  it("replaces a record atomically, leaving no temp file behind", () => {
    const id = newTaskId();
    writeRecord(agentDir, record(id));
    writeRecord(agentDir, record(id, { delivered: true, deliveredAt: 99 }));
    expect(readRecord(agentDir, id)).toMatchObject({ delivered: true, deliveredAt: 99 });
    expect(readdirSync(join(agentDir, "subagent-sessions", id))).toEqual(["record.json"]);
  });

  it("ignores a missing, garbage or foreign record", () => {
    const id = newTaskId();
    expect(readRecord(agentDir, id)).toBeUndefined();
    mkdirSync(join(agentDir, "subagent-sessions", id), { recursive: true });
    writeFileSync(recordPath(agentDir, id), "{ not json");
    expect(readRecord(agentDir, id)).toBeUndefined();
    writeFileSync(recordPath(agentDir, id), JSON.stringify({ version: 2, taskId: id }));
    expect(readRecord(agentDir, id)).toBeUndefined();
    writeFileSync(recordPath(agentDir, id), JSON.stringify({ version: 1 }));
    expect(readRecord(agentDir, id)).toBeUndefined();
    writeFileSync(recordPath(agentDir, id), "null");
    expect(readRecord(agentDir, id)).toBeUndefined();
  });

  it("lists task folders newest first, and the most recent records up to a limit", () => {
    const ids = [newTaskId(), newTaskId(), newTaskId(), newTaskId()];
    writeRecord(agentDir, record(ids[0]!));
    writeRecord(agentDir, record(ids[1]!, { status: "failed" }));
    // A task that is still running has a folder but no record yet.
    mkdirSync(join(agentDir, "subagent-sessions", ids[2]!), { recursive: true });
    writeRecord(agentDir, record(ids[3]!, { status: "cancelled" }));
    // Stray files in the sessions folder are not tasks.
    writeFileSync(join(agentDir, "subagent-sessions", "notes.txt"), "x");

    expect(listTaskIds(agentDir)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect(listRecentRecords(agentDir, 10).map((r) => r.taskId)).toEqual([ids[3], ids[1], ids[0]]);
    expect(listRecentRecords(agentDir, 2).map((r) => r.status)).toEqual(["cancelled", "failed"]);
  });

  it("reads back past the limit by the look-back: a task whose id is older than its dispatch (a warm child's) still counts", () => {
    const at = Date.parse("2026-12-05T10:00:00Z");
    // The warm-served task's id was chosen 60 s before the others'; it finished last.
    const warm = v7({ msecs: at - 60_000 });
    const others = [1, 2, 3].map((s) => v7({ msecs: at + s * 1000 }));
    const long = v7({ msecs: at - 600_000 });
    writeRecord(agentDir, record(warm, { finishedAt: at + 10_000, status: "failed" }));
    for (const id of others) writeRecord(agentDir, record(id, { finishedAt: at + 5_000 }));
    writeRecord(agentDir, record(long, { finishedAt: at + 20_000, status: "cancelled" }));

    expect(listRecentRecords(agentDir, 2).map((r) => r.taskId)).toEqual([others[2], others[1]]);
    expect(listRecentRecords(agentDir, 2, 180_000).map((r) => r.taskId)).toEqual([warm, others[2]]);
    // Beyond the look-back, ids are not read.
    expect(listRecentRecords(agentDir, 2, 180_000).map((r) => r.status)).not.toContain("cancelled");
    expect(listRecentRecords(agentDir, 5, 180_000).map((r) => r.taskId)).toEqual([long, warm, ...others.reverse()]);
  });

  it("one entry that cannot be read (a dangling link, a folder removed meanwhile) does not hide the others", () => {
    const id = newTaskId();
    writeRecord(agentDir, record(id));
    symlinkSync(join(agentDir, "nowhere"), join(agentDir, "subagent-sessions", newTaskId()));
    expect(listTaskIds(agentDir)).toEqual([id]);
    expect(listRecentRecords(agentDir, 5).map((r) => r.taskId)).toEqual([id]);
  });

  it("counts a task folder reached through a link, as the folder itself", () => {
    const id = newTaskId();
    const elsewhere = join(agentDir, "moved-task");
    mkdirSync(elsewhere);
    mkdirSync(join(agentDir, "subagent-sessions"), { recursive: true });
    symlinkSync(elsewhere, join(agentDir, "subagent-sessions", id));
    expect(listTaskIds(agentDir)).toEqual([id]);
  });

  it("lists nothing when no task ever ran", () => {
    expect(listTaskIds(agentDir)).toEqual([]);
    expect(listRecentRecords(agentDir, 5)).toEqual([]);
  });

  it("stores the record as readable JSON", () => {
    const id = newTaskId();
    writeRecord(agentDir, record(id));
    const text = readFileSync(recordPath(agentDir, id), "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    expect(JSON.parse(text).taskId).toBe(id);
  });
});

describe("a record.json that is not a regular file of ours (issue 28, item 6)", () => {
  it("a record.json linked to a file outside the store is neither read nor written through", () => {
    const id = newTaskId();
    const outside = join(agentDir, "someone-elses.json");
    const theirs = `${JSON.stringify(record(id, { output: "NOT OURS" }))}\n`;
    writeFileSync(outside, theirs);
    mkdirSync(join(agentDir, "subagent-sessions", id), { recursive: true });
    symlinkSync(outside, recordPath(agentDir, id));
    expect(readRecord(agentDir, id)).toBeUndefined();
    // A later write (a resumed task's record) replaces the link itself; the link's target is left alone.
    writeRecord(agentDir, record(id, { output: "OURS" }));
    expect(readFileSync(outside, "utf8")).toBe(theirs);
    expect(statSync(recordPath(agentDir, id)).isFile()).toBe(true);
    expect(readRecord(agentDir, id)?.output).toBe("OURS");
  });
});
