/**
 * The footer segment that says how many background subagents run and how many ended in this pi instance:
 * `⚙ 2 running · 3 done`. Shown once any task exists; gone while there has been none.
 */
import type { Counts } from "../../tasks/background-tasks.ts";
import type { Styler } from "../../shared/styler.ts";

export const STATUS_KEY = "subagents";

/**
 * `⚙ 2 running · 1 queued · 3 done` (queued only when something waits), or undefined when there is no task at all.
 */
export function statusText(counts: Counts): string | undefined {
  if (counts.running + counts.queued + counts.done === 0) return undefined;
  const parts = [`${counts.running} running`];
  if (counts.queued > 0) parts.push(`${counts.queued} queued`);
  parts.push(`${counts.done} done`);
  return `⚙ ${parts.join(" · ")}`;
}

/** Accent while something runs or waits, dim once everything has ended. */
export function styledStatus(counts: Counts, style: Styler): string | undefined {
  const text = statusText(counts);
  if (text === undefined) return undefined;
  return style.fg(counts.running + counts.queued > 0 ? "accent" : "dim", text);
}
