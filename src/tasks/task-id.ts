import { v7 as uuidv7 } from "uuid";

/** A task id is the child's session id: a lowercase UUID v7 (time-ordered, so ids sort by dispatch time). */
const TASK_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function newTaskId(): string {
  return uuidv7();
}

export function isTaskId(value: string): boolean {
  return TASK_ID_PATTERN.test(value);
}
