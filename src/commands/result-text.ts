/**
 * How a finished task reads outside the viewer: its status line (also the viewer's), the plain text that
 * `pi -p "/subagent-result <id>"` prints (metadata lines, a `---` line, then the full output, so a script can
 * split at the first `---` line), and the JSON line printed in JSON mode. Pure.
 */
import { formatDuration, formatUsage, oneLine } from "../shared/format.ts";
import { budgetAwareStatus, budgetSummary } from "../budget/record-text.ts";
import { messageBlock, shownOutput } from "../records/record-output.ts";
import type { TaskRecord } from "../records/types.ts";
import { modelProvenanceText } from "../records/model-text.ts";
import { worktreeChangesLines, worktreeSummary } from "../worktree/report-text.ts";

/** `succeeded`, or `cancelled by user` / `timed out (activity_timeout)` where the bare status hides why. */
export function statusWithCause(record: Pick<TaskRecord, "status" | "cancelledBy" | "stopReason" | "errorMessage">): string {
  if (record.status === "cancelled") {
    if (record.cancelledBy === "user") return "cancelled by user";
    if (record.cancelledBy === "agent") return "cancelled by main agent";
    if (record.cancelledBy === "none") return "cancelled by session shutdown";
    return "cancelled";
  }
  if (record.status === "timed out" && record.stopReason) return `timed out (${record.stopReason})`;
  return budgetAwareStatus(record);
}

/** `worker · succeeded · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042 · fake/fake-model` */
export function resultStatusLine(record: TaskRecord): string {
  const parts = [record.agent, statusWithCause(record), formatDuration(record.durationMs), formatUsage(record.usage)];
  if (record.model) parts.push(record.model);
  return parts.join(" · ");
}

/** `Depth: 2 of 3` under a nesting limit above 1, `Context: forked (12 messages)` for a forked task. */
function originLines(record: Pick<TaskRecord, "origin">): string[] {
  const origin = record.origin;
  if (!origin) return [];
  const lines: string[] = [];
  if (origin.maxDepth > 1) lines.push(`Depth: ${origin.depth} of ${origin.maxDepth}`);
  if (origin.context === "fork") lines.push(`Context: forked (${origin.forkedMessages ?? 0} messages)`);
  if (origin.sandbox) lines.push(`Sandbox: ${origin.sandbox}`);
  if (origin.toolsNotGranted) lines.push(`Note: ${origin.toolsNotGranted}`);
  return lines;
}

/** The metadata block of the printed result, one `Key: value` a line. */
export function resultMetadataLines(record: TaskRecord): string[] {
  const lines = [
    `Task id: ${record.taskId}`,
    `Agent: ${record.agent}`,
    `Status: ${statusWithCause(record)}`,
    `Duration: ${formatDuration(record.durationMs)}`,
    `Usage: ${formatUsage(record.usage)}`,
  ];
  if (record.usageNote) lines.push(`Usage note: ${record.usageNote}`);
  if (record.skippedOutput) {
    const first = record.skippedOutput.sample[0];
    const sample = first === undefined ? "" : ` (the first: ${JSON.stringify(oneLine(first, 80))})`;
    lines.push(`Skipped output: ${record.skippedOutput.lines} lines of the subagent's stdout that were not pi events${sample}`);
  }
  const model = modelProvenanceText(record);
  if (model) lines.push(`Model: ${model}`);
  const budget = budgetSummary(record);
  if (budget) lines.push(`Budget: ${budget}`);
  if (record.stopReason && record.status !== "succeeded") lines.push(`Stop reason: ${record.stopReason}`);
  if (record.errorMessage && record.status !== "succeeded") lines.push(`Error: ${oneLine(record.errorMessage, 500)}`);
  // A person's cancel records the command used, not a reason.
  if (record.cancelReason && record.cancelledBy === "user") lines.push(`Cancelled with: ${oneLine(record.cancelReason, 100)}`);
  else if (record.cancelReason) lines.push(`Cancellation reason: ${oneLine(record.cancelReason, 500)}`);
  lines.push(
    `Mode: ${record.mode === "async" ? "background" : "synchronous"}`,
    ...originLines(record),
    `Finished: ${new Date(record.finishedAt).toISOString()}`,
    `Session file: ${record.sessionFile}`,
    `Task: ${oneLine(record.task, 2000)}`,
  );
  if (record.worktree) lines.push(`Worktree: ${worktreeSummary(record.worktree)}`, ...worktreeChangesLines(record.worktree));
  lines.push(...messageBlock(record.messages));
  return lines;
}

/** What `pi -p "/subagent-result <id>"` writes to stdout: metadata, `---`, the full output. */
export function resultPlainText(record: TaskRecord): string {
  const shown = shownOutput(record);
  const output = shown.endsWith("\n") ? shown : `${shown}\n`;
  return `${resultMetadataLines(record).join("\n")}\n---\n${output}`;
}

/** The one JSON line JSON mode writes: the record (without the envelope, which repeats the output). */
export function resultJsonLine(record: TaskRecord): string {
  const { envelope: _envelope, ...rest } = record;
  return `${JSON.stringify({ type: "subagent_result", ...rest })}\n`;
}

/** One line per finished task, newest first, for `/subagent-result` without an id outside the TUI. */
export function recentResultLines(records: readonly TaskRecord[]): string[] {
  return records.map((record) => `${record.taskId}  ${record.agent}  ${statusWithCause(record)}  ${oneLine(record.task, 80)}`);
}
