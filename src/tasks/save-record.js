// @ts-check
/**
 * Writing a record where a failed write must not cost the result: the blocking tool path (the result is the
 * tool's return value, so it reaches the model whatever the disk does) and pi's exit path. The failure is
 * returned for the caller to report, never thrown.
 */
import { writeRecord } from "./record-store.js";
/** @import { TaskRecord } from "./types.ts" */

/**
 * @param {string} agentDir
 * @param {TaskRecord} record
 * @returns {unknown}
 */
export function saveRecordQuietly(agentDir, record) {
  try {
    writeRecord(agentDir, record);
    return undefined;
  } catch (error) {
    return error;
  }
}
