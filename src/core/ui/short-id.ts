/**
 * How much of a task id the widget and the card show. A UUID v7 starts with its creation time in ms (12 hex
 * digits), so 8 characters are the same for every task dispatched within a minute; 13 (`01912345-abcd`) tell
 * apart tasks dispatched in different milliseconds, and `shortTaskIds` lengthens them where even that is not
 * enough.
 */
export const SHORT_ID_LENGTH = 13;

export function shortTaskId(taskId: string): string {
  return taskId.slice(0, SHORT_ID_LENGTH);
}

/** For each id, its shortest prefix of at least SHORT_ID_LENGTH characters that no other id shares. */
export function shortTaskIds(taskIds: readonly string[]): string[] {
  return taskIds.map((id) => {
    let length = SHORT_ID_LENGTH;
    while (length < id.length && taskIds.some((other) => other !== id && other.startsWith(id.slice(0, length)))) length++;
    return id.slice(0, length);
  });
}
