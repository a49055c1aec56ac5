/**
 * Wires the session ledger to pi: each ended task (background or blocking) is appended to pi's session as a
 * `subagent-usage` custom entry; the footer shows the session's total once something ran (rebuilt from the
 * session's entries at every session start, so /reload and `pi -c` show the same total); /subagent-usage shows
 * the whole report (a TUI view, plain text on stdout in print mode, one JSON line in JSON mode).
 */
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { commandIo } from "./command-io.ts";
import { COMMANDS, USAGE_COMMAND } from "../../commands/descriptions.ts";
import { detectAppMode } from "../../shared/mode.ts";
import { ledgerEntriesOf, ledgerEntryOf, summarize, type LedgerEntry } from "../../budget/ledger.ts";
import { ledgerFooterText, ledgerReportLines } from "../../budget/ledger-text.ts";
import { appendLedgerEntry } from "../../budget/append-ledger-entry.ts";
import { UsageView } from "../ui/usage-view.ts";

export const LEDGER_STATUS_KEY = "subagent-usage";


type Ended = Parameters<typeof ledgerEntryOf>[0];

export interface LedgerHandle {
  /** Adds an ended task's usage to the session (and the footer). Never throws. */
  record(record: Ended): void;
}

function sessionEntries(ctx: Pick<ExtensionContext, "sessionManager">): LedgerEntry[] {
  return ledgerEntriesOf(ctx.sessionManager.getEntries());
}

export function registerLedger(pi: ExtensionAPI): LedgerHandle {
  let entries: LedgerEntry[] = [];
  let footer: ExtensionContext | undefined;

  const showFooter = () => {
    if (!footer) return;
    try {
      footer.ui.setStatus(LEDGER_STATUS_KEY, ledgerFooterText(summarize(entries)));
    } catch {
      footer = undefined; // a stale context after /reload: the next session start sets it again
    }
  };
  const interactive = (ctx: ExtensionContext) => ctx.hasUI && detectAppMode() === "interactive";

  pi.on("session_start", (_event, ctx) => {
    try {
      entries = sessionEntries(ctx);
    } catch {
      entries = [];
    }
    footer = interactive(ctx) ? ctx : undefined;
    showFooter();
  });

  pi.registerCommand(USAGE_COMMAND, {
    description: COMMANDS.usage.description,
    handler: async (_args: string, ctx: ExtensionCommandContext) => {
      const io = commandIo(ctx);
      try {
        // The session is the truth: in print mode (`pi -c -p "/subagent-usage"`) nothing else was loaded.
        const summary = summarize(sessionEntries(ctx));
        const lines = ledgerReportLines(summary);
        if (io.surface === "tui") {
          await ctx.ui.custom<void>((_tui, theme, _keybindings, done) => new UsageView(lines, theme, () => done()));
        } else if (io.surface === "rpc") {
          io.notice(lines.join("\n"));
        } else if (io.mode === "json") {
          io.stdout(`${JSON.stringify({ type: "subagent_usage", ...jsonOf(summary) })}\n`);
        } else {
          io.stdout(`${lines.join("\n")}\n`);
        }
      } catch (error) {
        io.notice(`/${USAGE_COMMAND} failed: ${error instanceof Error ? error.message : String(error)}`, "error");
        io.failed();
      }
    },
  });

  return {
    record(record) {
      const entry = appendLedgerEntry(pi, record);
      if (!entry) return;
      entries.push(entry);
      showFooter();
    },
  };
}

function jsonOf(summary: ReturnType<typeof summarize>) {
  return {
    total: summary.total,
    byStatus: Object.fromEntries(summary.byStatus),
    byAgent: Object.fromEntries(summary.byAgent),
    byModel: Object.fromEntries(summary.byModel),
  };
}
