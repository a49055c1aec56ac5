/**
 * Writing a record where a failed write must not cost the result: the blocking tool path (the result is the
 * tool's return value, so it reaches the model whatever the disk does) and pi's exit path. The failure is
 * returned for the caller to report, never thrown.
 */
import { writeRecord } from "./record-store.ts";
import type { TaskRecord } from "./types.ts";

export function saveRecordQuietly(agentDir: string, record: TaskRecord): unknown {
  try {
    writeRecord(agentDir, record);
    return undefined;
  } catch (error) {
    return error;
  }
}
