/**
 * A new task id: a UUID v7 from the `uuid` library, time-ordered and monotonic within the process (ids made in one
 * millisecond still sort in the order they were made), so task folders and records sort by dispatch time.
 */
import { v7 } from "uuid";

export function newTaskId(): string {
  return v7();
}
