/**
 * The runtime's tool part alone, for pi without the TUI (print, JSON and RPC mode): there a dispatch blocks
 * until its child ends, so it needs neither the background tasks nor the UI nor the command bodies, about half
 * of the runtime's modules (src/pi/runtime.ts has the whole). The light entry loads this on the first tool call in
 * those modes; a command loads the whole runtime, which then takes over (src/start/lazy-extension.ts).
 */
import { FanOutGate } from "../budget/fan-out.ts";
import { appendLedgerEntry } from "../budget/usage.ts";
import { registerSubagentTool } from "./tool/execute.ts";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export function register(pi: ExtensionAPI): void {
  // No background task runs here: only the blocking calls in flight count against the caps.
  const fanOutGate = new FanOutGate({ inFlight: () => [] });
  pi.on("agent_start", () => fanOutGate.runStarted());
  registerSubagentTool(pi, { onRecorded: (record) => appendLedgerEntry(pi, record), fanOutGate });
}
