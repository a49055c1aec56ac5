/** A task id is the child's session id: a lowercase UUID v7 (time-ordered, so ids sort by dispatch time). */
const TASK_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** What a typed prefix of a task id may contain: hex digits and dashes, no longer than a whole id. */
const TASK_ID_PREFIX_PATTERN = /^[0-9a-f-]{1,36}$/;

/** How much of an id that is not one is repeated back in a message. */
export const ID_ECHO_MAX = 40;

export function isTaskId(value: string): boolean {
  return TASK_ID_PATTERN.test(value);
}

/** Whether `value` (already trimmed and lowercased) could be the start of a task id. */
export function isTaskIdPrefix(value: string): boolean {
  return TASK_ID_PREFIX_PATTERN.test(value);
}

/**
 * An id (or whatever was passed as one) as a message repeats it: one line, no control characters, at most
 * ID_ECHO_MAX characters. A 10 KB "id" is cut, not echoed back whole.
 */
export function idForMessage(value: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return flat.length <= ID_ECHO_MAX ? flat : `${flat.slice(0, ID_ECHO_MAX - 1)}…`;
}
