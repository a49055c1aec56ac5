/**
 * Why nobody could answer a child's question, and the line its result carries for each one (pure):
 * `asked "Allow rm -rf build?": no one to answer (print mode)`. The main agent and the person read it to know why
 * the child stopped or was refused.
 */
import { questionLine } from "./question-label.ts";
import type { ChildDialog } from "./child-ui-request.ts";

/** Where a child's dialogs go: to the person (a sink in the TUI), or nowhere, for a reason the result names. */
export type NobodyReason = "print mode" | "JSON mode" | "RPC mode" | "$askPerson is false" | "too many questions waiting";

export function unansweredLine(dialog: Pick<ChildDialog, "title" | "message">, reason?: NobodyReason): string {
  return `asked "${questionLine(dialog)}": no one to answer${reason ? ` (${reason})` : ""}`;
}

/** Why nobody can answer in a pi that runs this way (the TUI has the person, so it has no reason). */
export function nobodyReasonOf(mode: "interactive" | "print" | "json" | "rpc"): NobodyReason | undefined {
  return mode === "print" ? "print mode" : mode === "json" ? "JSON mode" : mode === "rpc" ? "RPC mode" : undefined;
}
