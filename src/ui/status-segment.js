// @ts-check
/**
 * The footer segment that says how many background subagents run and how many ended in this pi instance:
 * `⚙ 2 running · 3 done`. Shown once any task exists; gone while there has been none.
 */
/** @import { Counts } from "../tasks/background-tasks.js" */
/** @import { Styler } from "./styler.ts" */

export const STATUS_KEY = "subagents";

/**
 * `⚙ 2 running · 1 queued · 3 done` (queued only when something waits), or undefined when there is no task at all.
 * @param {Counts} counts
 * @returns {string | undefined}
 */
export function statusText(counts) {
  if (counts.running + counts.queued + counts.done === 0) return undefined;
  const parts = [`${counts.running} running`];
  if (counts.queued > 0) parts.push(`${counts.queued} queued`);
  parts.push(`${counts.done} done`);
  return `⚙ ${parts.join(" · ")}`;
}

/**
 * Accent while something runs or waits, dim once everything has ended.
 * @param {Counts} counts
 * @param {Styler} style
 * @returns {string | undefined}
 */
export function styledStatus(counts, style) {
  const text = statusText(counts);
  if (text === undefined) return undefined;
  return style.fg(counts.running + counts.queued > 0 ? "accent" : "dim", text);
}
