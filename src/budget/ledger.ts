/**
 * The session ledger: what every subagent this pi session ran has used, kept as one custom entry per ended
 * task in pi's session (so it survives /reload and `pi -c`), and its totals by status, agent and model. Pure.
 *
 * Cost is summed in integer micro-units (millionths of the model's currency unit), never as floats: adding
 * 0.1 + 0.2 in binary gives 0.30000000000000004, and the totals must be the exact sum of the tasks' usage.
 */
import type { UsageTotals } from "../shared/format.ts";

/** The custom entry type in pi's session file. */
export const LEDGER_ENTRY_TYPE = "subagent-usage";
export const LEDGER_ENTRY_VERSION = 1;

/** One ended task, as stored in its custom entry's `data`. */
/** What a task used, and what the ledger adds up: whole numbers only, so sums are exact. */
export interface LedgerCounts {
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Cost in millionths of the model's currency unit. */
  costMicros: number;
}

export type LedgerEntry = LedgerCounts & {
  v: typeof LEDGER_ENTRY_VERSION;
  taskId: string;
  agent: string;
  model?: string;
  status: string;
  finishedAt: number;
};

export function toMicros(cost: number): number {
  return Number.isFinite(cost) ? Math.round(cost * 1_000_000) : 0;
}

export function ledgerEntryOf(record: {
    taskId: string;
    agent: string;
    model?: string;
    status: string;
    usage: UsageTotals;
    finishedAt: number;
  }): LedgerEntry {
  const entry: LedgerEntry = {
    v: LEDGER_ENTRY_VERSION,
    taskId: record.taskId,
    agent: record.agent,
    status: record.status,
    turns: record.usage.turns,
    input: record.usage.input,
    output: record.usage.output,
    cacheRead: record.usage.cacheRead,
    cacheWrite: record.usage.cacheWrite,
    costMicros: toMicros(record.usage.cost),
    finishedAt: record.finishedAt,
  };
  if (record.model) entry.model = record.model;
  return entry;
}

const wholeNumber = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** The entry's data when it is a ledger entry this version understands (a hand-edited session may hold anything). */
export function readLedgerEntry(data: unknown): LedgerEntry | undefined {
  if (!data || typeof data !== "object") return undefined;
  const entry = (data as Partial<LedgerEntry>);
  if (entry.v !== LEDGER_ENTRY_VERSION || typeof entry.taskId !== "string" || typeof entry.agent !== "string" || typeof entry.status !== "string") {
    return undefined;
  }
  const counts = [entry.turns, entry.input, entry.output, entry.cacheRead, entry.cacheWrite, entry.costMicros, entry.finishedAt];
  if (!counts.every(wholeNumber)) return undefined;
  if (entry.model !== undefined && typeof entry.model !== "string") return undefined;
  return (entry as LedgerEntry);
}

/** The ledger entries among a session's entries, in order. */
export function ledgerEntriesOf(sessionEntries: readonly unknown[]): LedgerEntry[] {
  const found: LedgerEntry[] = [];
  for (const raw of sessionEntries) {
    const entry = (raw as { type?: unknown; customType?: unknown; data?: unknown });
    if (entry?.type !== "custom" || entry.customType !== LEDGER_ENTRY_TYPE) continue;
    const ledgerEntry = readLedgerEntry(entry.data);
    if (ledgerEntry) found.push(ledgerEntry);
  }
  return found;
}

export type LedgerTotals = LedgerCounts & { tasks: number };

export interface LedgerSummary {
  total: LedgerTotals;
  /** Task counts by status, in the order statuses first appeared. */
  byStatus: Map<string, number>;
  byAgent: Map<string, LedgerTotals>;
  /** By `provider/model` (`unknown` when the run reported none). */
  byModel: Map<string, LedgerTotals>;
}

export function emptyTotals(): LedgerTotals {
  return { tasks: 0, turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costMicros: 0 };
}

function add(totals: LedgerTotals, entry: LedgerEntry): void {
  totals.tasks += 1;
  totals.turns += entry.turns;
  totals.input += entry.input;
  totals.output += entry.output;
  totals.cacheRead += entry.cacheRead;
  totals.cacheWrite += entry.cacheWrite;
  totals.costMicros += entry.costMicros;
}

function addTo(map: Map<string, LedgerTotals>, key: string, entry: LedgerEntry): void {
  let totals = map.get(key);
  if (!totals) map.set(key, (totals = emptyTotals()));
  add(totals, entry);
}

export function summarize(entries: readonly LedgerEntry[]): LedgerSummary {
  const summary: LedgerSummary = { total: emptyTotals(), byStatus: new Map(), byAgent: new Map(), byModel: new Map() };
  for (const entry of entries) {
    add(summary.total, entry);
    summary.byStatus.set(entry.status, (summary.byStatus.get(entry.status) ?? 0) + 1);
    addTo(summary.byAgent, entry.agent, entry);
    addTo(summary.byModel, entry.model ?? "unknown", entry);
  }
  return summary;
}
