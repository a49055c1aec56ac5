// @ts-check
/**
 * Task records on disk, one `record.json` in each task's session folder. Writes are atomic (temp file, fsync,
 * rename), so a reader never sees half a record and a crash leaves the previous one.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../shared/atomic-file.js";
import { taskDir } from "../run/session-file.js";
import { isTaskId } from "./task-id.js";
import { taskFolderIds } from "./startup-work.js";
/** @import { TaskRecord } from "./types.ts" */

export const RECORD_FILE_NAME = "record.json";

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {string}
 */
export function recordPath(agentDir, taskId) {
  return join(taskDir(agentDir, taskId), RECORD_FILE_NAME);
}

/**
 * @param {string} agentDir
 * @param {TaskRecord} record
 * @returns {void}
 */
export function writeRecord(agentDir, record) {
  const dir = taskDir(agentDir, record.taskId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Synchronous on purpose: records are small, and the exit path must be able to write them too.
  writeFileAtomicSync(join(dir, RECORD_FILE_NAME), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * @param {unknown} value
 * @returns {value is TaskRecord}
 */
function isRecord(value) {
  return Boolean(value) && typeof value === "object" && /** @type {TaskRecord} */ (value).version === 1 && typeof /** @type {TaskRecord} */ (value).taskId === "string";
}

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {TaskRecord | undefined}
 */
export function readRecord(agentDir, taskId) {
  if (!isTaskId(taskId)) return undefined;
  try {
    /** @type {unknown} */
    const parsed = JSON.parse(readFileSync(recordPath(agentDir, taskId), "utf8"));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ids of every task folder (running or finished), newest first (UUID v7 ids sort by time).
 * @param {string} agentDir
 * @returns {string[]}
 */
export function listTaskIds(agentDir) {
  return taskFolderIds(agentDir).sort().reverse();
}

/**
 * The most recent finished records, newest first.
 * @param {string} agentDir
 * @param {number} limit
 * @returns {TaskRecord[]}
 */
export function listRecentRecords(agentDir, limit) {
  /** @type {TaskRecord[]} */
  const records = [];
  for (const id of listTaskIds(agentDir)) {
    if (records.length >= limit) break;
    const record = readRecord(agentDir, id);
    if (record) records.push(record);
  }
  return records;
}
