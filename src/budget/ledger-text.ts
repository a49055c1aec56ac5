/**
 * How the ledger reads: the compact footer total and the full report of /subagent-usage (the same lines in the
 * TUI view and on stdout in print mode). Pure. Token counts are printed whole, and cost with four decimal
 * places (as every envelope prints it), so the report can be checked against the envelopes by hand.
 */
import { counted, formatTokens } from "../shared/format.ts";
import type { LedgerSummary, LedgerTotals } from "./ledger.ts";

/** `$0.0420` from micro-units (integer arithmetic up to the rounding of the last place). */
export function formatMicros(micros: number): string {
  return `$${(micros / 1_000_000).toFixed(4)}`;
}

/** The footer status: `subagents: 3 tasks · ↑30k ↓6k · $0.0420`; undefined while nothing ran. */
export function ledgerFooterText(summary: LedgerSummary): string | undefined {
  const total = summary.total;
  if (total.tasks === 0) return undefined;
  const tasks = `${total.tasks} ${total.tasks === 1 ? "task" : "tasks"}`;
  return `subagents: ${tasks} · ↑${formatTokens(total.input)} ↓${formatTokens(total.output)} · ${formatMicros(total.costMicros)}`;
}

export const NO_USAGE_YET = "No subagent has run in this session yet.";

function totalsColumns(totals: LedgerTotals): string {
  const tasks = `${totals.tasks} ${totals.tasks === 1 ? "task" : "tasks"}`;
  return `${tasks} · ${counted(totals.turns, "turn")} · input ${totals.input} · output ${totals.output} · cache read ${totals.cacheRead} · cache write ${totals.cacheWrite} · cost ${formatMicros(totals.costMicros)}`;
}

/**
 *   Subagent usage in this session
 *   Total: 3 tasks · 6 turns · input 30000 · output 6000 · cache read 0 · cache write 0 · cost $0.0420
 *   Tasks by status: succeeded 2 · stopped 1
 *   By agent:
 *   - worker: 3 tasks · ...
 *   By model:
 *   - fake/fake-model: 3 tasks · ...
 */
export function ledgerReportLines(summary: LedgerSummary): string[] {
  if (summary.total.tasks === 0) return [NO_USAGE_YET];
  const statuses = [...summary.byStatus].map(([status, count]) => `${status} ${count}`).join(" · ");
  const lines = ["Subagent usage in this session", `Total: ${totalsColumns(summary.total)}`, `Tasks by status: ${statuses}`, "By agent:"];
  for (const [agent, totals] of summary.byAgent) lines.push(`- ${agent}: ${totalsColumns(totals)}`);
  lines.push("By model:");
  for (const [model, totals] of summary.byModel) lines.push(`- ${model}: ${totalsColumns(totals)}`);
  return lines;
}
