/**
 * How much of a task id the widget and the cards show: its end. A UUID v7 starts with its creation time, so tasks
 * (and a batch and its parts) dispatched together share their first 8 to 13 characters or more, while the last 8
 * are random: 8 hex digits tell apart everything a person sees at once, and the commands accept them as the id
 * (`src/commands/task-prefix.ts`). `shortTaskIds` lengthens them in the rare case two shown ids end alike.
 */
export const SHORT_ID_LENGTH = 8;

export function shortTaskId(taskId: string): string {
  return taskId.slice(-SHORT_ID_LENGTH);
}

/** For each id, its shortest end of at least SHORT_ID_LENGTH characters that no other id shares. */
export function shortTaskIds(taskIds: readonly string[]): string[] {
  return taskIds.map((id) => {
    let length = SHORT_ID_LENGTH;
    while (length < id.length && taskIds.some((other) => other !== id && other.endsWith(id.slice(-length)))) length++;
    return id.slice(-length);
  });
}
