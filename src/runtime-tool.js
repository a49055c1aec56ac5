// @ts-check
/**
 * The runtime's tool part alone, for pi without the TUI (print, JSON and RPC mode): there a dispatch blocks
 * until its child ends, so it needs neither the background tasks nor the UI nor the command bodies, about half
 * of the runtime's modules (src/runtime.ts has the whole). The light entry loads this on the first tool call in
 * those modes; a command loads the whole runtime, which then takes over (src/lazy/lazy-extension.js). Node loads
 * it and all it imports itself (ADVANCED.md, "Modules Node loads itself"); what comes from pi's packages is
 * handed over as `piParts` (src/tool/pi-parts.ts).
 */
import { FanOutGate } from "./fanout/fan-out-gate.js";
import { appendLedgerEntry } from "./ledger/append-ledger-entry.js";
import { registerSubagentTool } from "./tool/register-tool.js";
/** @import { ExtensionAPI } from "@mariozechner/pi-coding-agent" */
/** @import { LazyRuntime } from "./lazy/lazy-extension.js" */
/** @import { ToolPiParts } from "./tool/register-tool.js" */

/**
 * @param {ToolPiParts} piParts
 * @returns {LazyRuntime}
 */
export function toolPart(piParts) {
  return {
    register(/** @type {ExtensionAPI} */ pi) {
      // No background task runs here: only the blocking calls in flight count against the caps.
      const fanOutGate = new FanOutGate({ inFlight: () => [] });
      pi.on("agent_start", () => fanOutGate.runStarted());
      registerSubagentTool(pi, piParts, { onRecorded: (record) => appendLedgerEntry(pi, record), fanOutGate });
    },
  };
}
