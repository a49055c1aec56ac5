// @ts-check
/**
 * One ended task's usage into pi's session as a `subagent-usage` custom entry: the ledger's only write, shared
 * by the whole runtime (which also keeps the footer) and the tool part that serves blocking calls alone.
 */
/** @import { ExtensionAPI } from "@mariozechner/pi-coding-agent" */
import { LEDGER_ENTRY_TYPE, ledgerEntryOf } from "./ledger.js";
/** @import { LedgerEntry } from "./ledger.js" */

/**
 * The entry appended, or undefined when pi's session is gone (shutdown, reload); never throws.
 * @param {Pick<ExtensionAPI, "appendEntry">} pi
 * @param {Parameters<typeof ledgerEntryOf>[0]} record
 * @returns {LedgerEntry | undefined}
 */
export function appendLedgerEntry(pi, record) {
  const entry = ledgerEntryOf(record);
  try {
    pi.appendEntry(LEDGER_ENTRY_TYPE, entry);
  } catch {
    // the task's record on disk still has its usage
    return undefined;
  }
  return entry;
}
