// @ts-check
/**
 * The session ledger: what every subagent this pi session ran has used, kept as one custom entry per ended
 * task in pi's session (so it survives /reload and `pi -c`), and its totals by status, agent and model. Pure.
 *
 * Cost is summed in integer micro-units (millionths of the model's currency unit), never as floats: adding
 * 0.1 + 0.2 in binary gives 0.30000000000000004, and the totals must be the exact sum of the tasks' usage.
 */
/** @import { UsageTotals } from "../shared/format.js" */

/** The custom entry type in pi's session file. */
export const LEDGER_ENTRY_TYPE = "subagent-usage";
export const LEDGER_ENTRY_VERSION = 1;

/** One ended task, as stored in its custom entry's `data`. */
/**
 * What a task used, and what the ledger adds up: whole numbers only, so sums are exact.
 * @typedef {object} LedgerCounts
 * @property {number} turns
 * @property {number} input
 * @property {number} output
 * @property {number} cacheRead
 * @property {number} cacheWrite
 * @property {number} costMicros Cost in millionths of the model's currency unit.
 */

/**
 * @typedef {LedgerCounts & {
 *   v: typeof LEDGER_ENTRY_VERSION;
 *   taskId: string;
 *   agent: string;
 *   model?: string;
 *   status: string;
 *   finishedAt: number;
 * }} LedgerEntry
 */

/**
 * @param {number} cost
 * @returns {number}
 */
export function toMicros(cost) {
  return Number.isFinite(cost) ? Math.round(cost * 1_000_000) : 0;
}

/**
 * @param {{
 *   taskId: string;
 *   agent: string;
 *   model?: string;
 *   status: string;
 *   usage: UsageTotals;
 *   finishedAt: number;
 * }} record
 * @returns {LedgerEntry}
 */
export function ledgerEntryOf(record) {
  /** @type {LedgerEntry} */
  const entry = {
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

/**
 * @param {unknown} value
 * @returns {value is number}
 */
const wholeNumber = (value) => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/**
 * The entry's data when it is a ledger entry this version understands (a hand-edited session may hold anything).
 * @param {unknown} data
 * @returns {LedgerEntry | undefined}
 */
export function readLedgerEntry(data) {
  if (!data || typeof data !== "object") return undefined;
  const entry = /** @type {Partial<LedgerEntry>} */ (data);
  if (entry.v !== LEDGER_ENTRY_VERSION || typeof entry.taskId !== "string" || typeof entry.agent !== "string" || typeof entry.status !== "string") {
    return undefined;
  }
  const counts = [entry.turns, entry.input, entry.output, entry.cacheRead, entry.cacheWrite, entry.costMicros, entry.finishedAt];
  if (!counts.every(wholeNumber)) return undefined;
  if (entry.model !== undefined && typeof entry.model !== "string") return undefined;
  return /** @type {LedgerEntry} */ (entry);
}

/**
 * The ledger entries among a session's entries, in order.
 * @param {readonly unknown[]} sessionEntries
 * @returns {LedgerEntry[]}
 */
export function ledgerEntriesOf(sessionEntries) {
  /** @type {LedgerEntry[]} */
  const found = [];
  for (const raw of sessionEntries) {
    const entry = /** @type {{ type?: unknown; customType?: unknown; data?: unknown }} */ (raw);
    if (entry?.type !== "custom" || entry.customType !== LEDGER_ENTRY_TYPE) continue;
    const ledgerEntry = readLedgerEntry(entry.data);
    if (ledgerEntry) found.push(ledgerEntry);
  }
  return found;
}

/** @typedef {LedgerCounts & { tasks: number }} LedgerTotals */

/**
 * @typedef {object} LedgerSummary
 * @property {LedgerTotals} total
 * @property {Map<string, number>} byStatus Task counts by status, in the order statuses first appeared.
 * @property {Map<string, LedgerTotals>} byAgent
 * @property {Map<string, LedgerTotals>} byModel By `provider/model` (`unknown` when the run reported none).
 */

/** @returns {LedgerTotals} */
export function emptyTotals() {
  return { tasks: 0, turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costMicros: 0 };
}

/**
 * @param {LedgerTotals} totals
 * @param {LedgerEntry} entry
 * @returns {void}
 */
function add(totals, entry) {
  totals.tasks += 1;
  totals.turns += entry.turns;
  totals.input += entry.input;
  totals.output += entry.output;
  totals.cacheRead += entry.cacheRead;
  totals.cacheWrite += entry.cacheWrite;
  totals.costMicros += entry.costMicros;
}

/**
 * @param {Map<string, LedgerTotals>} map
 * @param {string} key
 * @param {LedgerEntry} entry
 * @returns {void}
 */
function addTo(map, key, entry) {
  let totals = map.get(key);
  if (!totals) map.set(key, (totals = emptyTotals()));
  add(totals, entry);
}

/**
 * @param {readonly LedgerEntry[]} entries
 * @returns {LedgerSummary}
 */
export function summarize(entries) {
  /** @type {LedgerSummary} */
  const summary = { total: emptyTotals(), byStatus: new Map(), byAgent: new Map(), byModel: new Map() };
  for (const entry of entries) {
    add(summary.total, entry);
    summary.byStatus.set(entry.status, (summary.byStatus.get(entry.status) ?? 0) + 1);
    addTo(summary.byAgent, entry.agent, entry);
    addTo(summary.byModel, entry.model ?? "unknown", entry);
  }
  return summary;
}
