/**
 * What subagents used: one turn's usage as the budgets may trust it, and the session ledger with its one write and its texts.
 */
import { counted, formatTokens, type UsageTotals } from "../shared/text.ts";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

/*
 * One turn's usage as the budgets may trust it. A provider's report can be broken (negative counts, text, or no
 * report at all, which pi passes on as zeros or nulls); taken as it is, such a report keeps `maxTokens` and
 * `maxCost` from ever tripping. A report is usable only when its token counts are numbers ≥ 0 and not all zero
 * (every real model call reads some input); otherwise the turn's tokens are estimated from the sizes of the
 * messages the child's stream showed, and its cost is unknown. Pure.
 */
/** Characters per token of the estimate: the usual rough rule for English text and code. */
const CHARS_PER_TOKEN = 4;

export interface TurnUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** The tokens are an estimate: the provider's report was not usable. */
  estimated: boolean;
  /** The cost is known (false with an estimate, or a cost that is negative or not a number). */
  costKnown: boolean;
}

/** What a turn's estimate is made from: characters of context before the answer, and of the answer itself. */
export interface TurnSizes {
  contextChars: number;
  answerChars: number;
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

function estimateTokens(chars: number): number {
  return Math.ceil(Math.max(0, chars) / CHARS_PER_TOKEN);
}

/**
 * The turn's usage from pi's `usage` object of an assistant message (any shape) and the sizes seen. A call that
 * failed or was aborted (`answered` false) without a usable report is taken as costing nothing, as providers
 * bill it, rather than estimated.
 */
export function readTurnUsage(raw: unknown, sizes: TurnSizes, answered = true): TurnUsage {
  const usage = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const cost = usage.cost && typeof usage.cost === "object" ? (usage.cost as Record<string, unknown>).total : undefined;
  const cacheRead = isCount(usage.cacheRead) ? usage.cacheRead : 0;
  const cacheWrite = isCount(usage.cacheWrite) ? usage.cacheWrite : 0;
  const { input, output } = usage;
  const usable = isCount(input) && isCount(output) && input + output + cacheRead + cacheWrite > 0;
  if (!usable && !answered)
    return { input: 0, output: 0, cacheRead, cacheWrite, cost: 0, estimated: false, costKnown: true };
  if (!usable) {
    return {
      input: estimateTokens(sizes.contextChars),
      output: estimateTokens(sizes.answerChars),
      cacheRead,
      cacheWrite,
      cost: 0,
      estimated: true,
      costKnown: false,
    };
  }
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    cost: isCount(cost) ? cost : 0,
    estimated: false,
    costKnown: isCount(cost),
  };
}

/**
 * The record's and the result's note on a run with turns of unusable usage, or undefined when every report
 * was usable.
 */
export function usageNoteText(turns: number, estimatedTurns: number, unknownCostTurns: number): string | undefined {
  if (estimatedTurns === 0 && unknownCostTurns === 0) return undefined;
  const parts: string[] = [];
  if (estimatedTurns > 0) {
    parts.push(
      `the provider reported no usable usage for ${estimatedTurns} of ${counted(turns, "turn")}; their tokens are estimated from the text sizes (${CHARS_PER_TOKEN} characters a token, without pi's system prompt)`,
    );
  }
  parts.push(
    unknownCostTurns === estimatedTurns
      ? "their cost is unknown (counted as $0)"
      : `the cost of ${unknownCostTurns} of ${counted(turns, "turn")} is unknown (counted as $0)`,
  );
  return parts.join("; ");
}

/*
 * The session ledger: what every subagent this pi session ran has used, kept as one custom entry per ended
 * task in pi's session (so it survives /reload and `pi -c`), and its totals by status, agent and model. Pure.
 *
 * Cost is summed in integer micro-units (millionths of the model's currency unit), never as floats: adding
 * 0.1 + 0.2 in binary gives 0.30000000000000004, and the totals must be the exact sum of the tasks' usage.
 */
/** The custom entry type in pi's session file. */
export const LEDGER_ENTRY_TYPE = "subagent-usage";
const LEDGER_ENTRY_VERSION = 1;

/** One ended task, as stored in its custom entry's `data`. */
/** What a task used, and what the ledger adds up: whole numbers only, so sums are exact. */
interface LedgerCounts {
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

function toMicros(cost: number): number {
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

const wholeNumber = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** The entry's data when it is a ledger entry this version understands (a hand-edited session may hold anything). */
function readLedgerEntry(data: unknown): LedgerEntry | undefined {
  if (!data || typeof data !== "object") return undefined;
  const entry = data as Partial<LedgerEntry>;
  if (
    entry.v !== LEDGER_ENTRY_VERSION ||
    typeof entry.taskId !== "string" ||
    typeof entry.agent !== "string" ||
    typeof entry.status !== "string"
  ) {
    return undefined;
  }
  const counts = [
    entry.turns,
    entry.input,
    entry.output,
    entry.cacheRead,
    entry.cacheWrite,
    entry.costMicros,
    entry.finishedAt,
  ];
  if (!counts.every(wholeNumber)) return undefined;
  if (entry.model !== undefined && typeof entry.model !== "string") return undefined;
  return entry as LedgerEntry;
}

/** The ledger entries among a session's entries, in order. */
export function ledgerEntriesOf(sessionEntries: readonly unknown[]): LedgerEntry[] {
  const found: LedgerEntry[] = [];
  for (const raw of sessionEntries) {
    const entry = raw as { type?: unknown; customType?: unknown; data?: unknown };
    if (entry?.type !== "custom" || entry.customType !== LEDGER_ENTRY_TYPE) continue;
    const ledgerEntry = readLedgerEntry(entry.data);
    if (ledgerEntry) found.push(ledgerEntry);
  }
  return found;
}

type LedgerTotals = LedgerCounts & { tasks: number };

export interface LedgerSummary {
  total: LedgerTotals;
  /** Task counts by status, in the order statuses first appeared. */
  byStatus: Map<string, number>;
  byAgent: Map<string, LedgerTotals>;
  /** By `provider/model` (`unknown` when the run reported none). */
  byModel: Map<string, LedgerTotals>;
}

function emptyTotals(): LedgerTotals {
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

/*
 * How the ledger reads: the compact footer total and the full report of /subagent-usage (the same lines in the
 * TUI view and on stdout in print mode). Pure. Token counts are printed whole, and cost with four decimal
 * places (as every envelope prints it), so the report can be checked against the envelopes by hand.
 */
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
  const lines = [
    "Subagent usage in this session",
    `Total: ${totalsColumns(summary.total)}`,
    `Tasks by status: ${statuses}`,
    "By agent:",
  ];
  for (const [agent, totals] of summary.byAgent) lines.push(`- ${agent}: ${totalsColumns(totals)}`);
  lines.push("By model:");
  for (const [model, totals] of summary.byModel) lines.push(`- ${model}: ${totalsColumns(totals)}`);
  return lines;
}

/*
 * One ended task's usage into pi's session as a `subagent-usage` custom entry: the ledger's only write, shared
 * by the whole runtime (which also keeps the footer) and the tool part that serves blocking calls alone.
 */
/** The entry appended, or undefined when pi's session is gone (shutdown, reload); never throws. */
export function appendLedgerEntry(
  pi: Pick<ExtensionAPI, "appendEntry">,
  record: Parameters<typeof ledgerEntryOf>[0],
): LedgerEntry | undefined {
  const entry = ledgerEntryOf(record);
  try {
    pi.appendEntry(LEDGER_ENTRY_TYPE, entry);
  } catch {
    // the task's record on disk still has its usage
    return undefined;
  }
  return entry;
}
