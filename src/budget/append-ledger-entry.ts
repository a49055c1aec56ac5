/**
 * One ended task's usage into pi's session as a `subagent-usage` custom entry: the ledger's only write, shared
 * by the whole runtime (which also keeps the footer) and the tool part that serves blocking calls alone.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { LEDGER_ENTRY_TYPE, ledgerEntryOf } from "./ledger.ts";
import type { LedgerEntry } from "./ledger.ts";

/** The entry appended, or undefined when pi's session is gone (shutdown, reload); never throws. */
export function appendLedgerEntry(pi: Pick<ExtensionAPI, "appendEntry">, record: Parameters<typeof ledgerEntryOf>[0]): LedgerEntry | undefined {
  const entry = ledgerEntryOf(record);
  try {
    pi.appendEntry(LEDGER_ENTRY_TYPE, entry);
  } catch {
    // the task's record on disk still has its usage
    return undefined;
  }
  return entry;
}
