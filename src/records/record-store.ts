/**
 * Task records on disk, one `record.json` in each task's session folder. Writes are atomic (temp file, every
 * byte checked, fsync, rename), so a reader never sees half a record and a crash leaves the previous one. A
 * record is read only as a regular file of at most RECORD_MAX_BYTES, never through a link (state-file.ts).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../shared/atomic-file.ts";
import { readStateJsonSync, RECORD_MAX_BYTES } from "../shared/state-file.ts";
import { taskDir } from "../run/session-file.ts";
import { isTaskId } from "../shared/task-id.ts";
import { taskFolderIds } from "../run/startup-work.ts";
import type { TaskRecord } from "./types.ts";

export const RECORD_FILE_NAME = "record.json";

export function recordPath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), RECORD_FILE_NAME);
}

export function writeRecord(agentDir: string, record: TaskRecord): void {
  const dir = taskDir(agentDir, record.taskId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Synchronous on purpose: records are small, and the exit path must be able to write them too.
  writeFileAtomicSync(join(dir, RECORD_FILE_NAME), `${JSON.stringify(record, null, 2)}\n`);
}

function isRecord(value: unknown): value is TaskRecord {
  return Boolean(value) && typeof value === "object" && (value as TaskRecord).version === 1 && typeof (value as TaskRecord).taskId === "string";
}

export function readRecord(agentDir: string, taskId: string): TaskRecord | undefined {
  if (!isTaskId(taskId)) return undefined;
  const parsed = readStateJsonSync(recordPath(agentDir, taskId), RECORD_MAX_BYTES);
  return isRecord(parsed) ? parsed : undefined;
}

/** Ids of every task folder (running or finished), newest first (UUID v7 ids sort by time). */
export function listTaskIds(agentDir: string): string[] {
  return taskFolderIds(agentDir).sort().reverse();
}

/** The most recent finished records, newest first. */
export function listRecentRecords(agentDir: string, limit: number): TaskRecord[] {
  const records: TaskRecord[] = [];
  for (const id of listTaskIds(agentDir)) {
    if (records.length >= limit) break;
    const record = readRecord(agentDir, id);
    if (record) records.push(record);
  }
  return records;
}
