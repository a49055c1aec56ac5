/**
 * How many of a child's `notify` notices reach the person (pure): a few per task in a sliding window, then one
 * line saying the rest are held back, so a looping child cannot flood the screen.
 */

/** At most this many notices of one task in NOTICE_WINDOW_MS. */
export const NOTICES_PER_WINDOW = 3;
export const NOTICE_WINDOW_MS = 10_000;

export type NoticeVerdict = "show" | "show-suppression" | "drop";

export class NoticeLimit {
  private readonly shownAt: Map<string, number[]> = new Map();
  private readonly suppressed: Set<string> = new Set();
  private readonly perWindow: number;
  private readonly windowMs: number;

  constructor(perWindow = NOTICES_PER_WINDOW, windowMs = NOTICE_WINDOW_MS) {
    this.perWindow = perWindow;
    this.windowMs = windowMs;
  }

  /** What to do with a notice of `taskId` arriving at `now`: show it, say the rest are held back (once), or drop it. */
  admit(taskId: string, now: number): NoticeVerdict {
    const recent = (this.shownAt.get(taskId) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length < this.perWindow) {
      recent.push(now);
      this.shownAt.set(taskId, recent);
      this.suppressed.delete(taskId);
      return "show";
    }
    this.shownAt.set(taskId, recent);
    if (this.suppressed.has(taskId)) return "drop";
    this.suppressed.add(taskId);
    return "show-suppression";
  }

  /** Forgets a task (it ended). */
  forget(taskId: string): void {
    this.shownAt.delete(taskId);
    this.suppressed.delete(taskId);
  }
}
