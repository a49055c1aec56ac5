/**
 * `/subagent-trace`'s arguments and notices: `[id] [--json <file>]`, and what the command says when there is
 * nothing to show. Pure.
 */
import { TRACE_COMMAND } from "../commands/descriptions.ts";

export interface TraceArgs {
  /** The typed id or start/end of one; empty: none given. */
  id: string;
  /** `--json <file>`: where the spans go. */
  jsonFile?: string;
}

/** `<id> --json <file>`, in either order; the file is the rest after `--json` (a path may hold spaces). */
export function parseTraceArgs(args: string): TraceArgs | { error: string } {
  const match = /(^|\s)--json(?:\s+(.*))?$/s.exec(args);
  const before = match ? args.slice(0, match.index) : args;
  const id = before.trim();
  if (!match) return { id };
  const file = (match[2] ?? "").trim();
  if (file === "") return { error: TRACE_USAGE };
  return { id, jsonFile: file };
}

export const TRACE_USAGE = `Usage: /${TRACE_COMMAND} <task, batch or chain id> [--json <file>] (a unique start or end of 4+ characters is enough; no id: the recent ones)`;

export const NO_TRACES = "No subagent delegations recorded yet.";

export const TRACE_PICKER_TITLE = "Trace which delegation?";

export function noTrace(id: string): string {
  return `No subagent task, batch or chain ${JSON.stringify(id)} is recorded here.`;
}

export function spansWritten(count: number, file: string, what: string): string {
  return `Wrote ${count} spans of ${what} to ${file}`;
}

export function spansNotWritten(file: string, error: unknown): string {
  return `Could not write the spans to ${file}: ${error instanceof Error ? error.message : String(error)}`;
}
