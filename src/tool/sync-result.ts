/**
 * The text a blocking (print/JSON/RPC) dispatch returns to the model. Success is the subagent's final answer
 * followed by the session line; anything else is a short diagnosis the model can act on, with whatever output
 * exists and the same session line (so the session can still be resumed or inspected).
 */
import { CRASHED_STOP_REASON, KILLED_STOP_REASON } from "../run/classify.ts";
import { formatDuration, formatSeconds, formatUsage } from "../shared/format.ts";
import { budgetAwareStatus, budgetSummary } from "../budget/record-text.ts";
import { stripTerminalControls } from "../shared/terminal-text.ts";
import { limitedOutput } from "../records/output-limit.ts";
import { inertChildText } from "../delivery/inert-output.ts";
import { isPartialRecord, shownOutput } from "../records/record-output.ts";
import type { TaskRecord } from "../records/types.ts";
import { callChoseModel, modelProvenanceText } from "../records/model-text.ts";
import { worktreeBlock } from "../worktree/report-text.ts";

export function sessionLine(taskId: string): string {
  return `[subagent session: ${taskId}]`;
}

function stopReasonText(record: TaskRecord, activityTimeoutMs: number, hardTimeoutMs: number): string | undefined {
  switch (record.stopReason) {
    case "activity_timeout":
      return `activity_timeout (no output for ${formatSeconds(activityTimeoutMs)})`;
    case "hard_timeout":
      return `hard_timeout (ran longer than ${formatSeconds(hardTimeoutMs)})`;
    case "aborted":
      return "aborted (the call was interrupted)";
    case KILLED_STOP_REASON:
      return "killed (a signal from outside pi-subagent-dispatch ended its pi process: kill, the OOM killer)";
    case CRASHED_STOP_REASON:
      return `crashed (its pi process exited with code ${record.exitCode ?? "?"} in the middle of its run)`;
    default:
      return record.stopReason;
  }
}

export function syncResultText(record: TaskRecord, limits: { activityTimeoutMs: number; hardTimeoutMs: number }): string {
  // The child's text may not pass for this result's own lines, nor for a batch's or chain's part headings.
  const output = inertChildText(limitedOutput(record));
  const budget = budgetSummary(record);
  const cappedNote = record.budgetNotes && record.budgetNotes.length > 0 ? `\n[subagent budget: ${budget}]` : "";
  const usageNote = record.usageNote ? `\n[subagent usage: ${record.usageNote}]` : "";
  const worktree = record.worktree ? `\n\n${worktreeBlock(record.worktree)}` : "";
  const notGranted = `${record.origin?.sandbox ? `\n[subagent sandbox: ${record.origin.sandbox}]` : ""}${record.origin?.toolsNotGranted ? `\n[subagent ${record.origin.toolsNotGranted}]` : ""}`;
  const asked = record.unansweredQuestions?.length ? `${record.unansweredQuestions.join("\n")}\n\n` : "";
  // Only a call's own choice is named, so a plain answer stays the answer and its session line.
  const model = callChoseModel(record) ? `\n[subagent model: ${modelProvenanceText(record)}]` : "";
  if (record.status === "succeeded") return `${output}\n\n${asked}${sessionLine(record.taskId)}${model}${notGranted}${cappedNote}${usageNote}${worktree}`;
  const lines = [`Subagent ${record.agent} ${budgetAwareStatus(record)}.`];
  const reason = stopReasonText(record, limits.activityTimeoutMs, limits.hardTimeoutMs);
  if (reason) lines.push(`- Stop reason: ${reason}`);
  if (record.errorMessage && record.status !== "stopped") lines.push(`- Error: ${inertChildText(record.errorMessage)}`);
  if (budget) lines.push(`- Budget: ${budget}`);
  if (record.origin?.sandbox) lines.push(`- Sandbox: ${record.origin.sandbox}`);
  if (record.origin?.toolsNotGranted) lines.push(`- Note: ${record.origin.toolsNotGranted}`);
  if (callChoseModel(record)) lines.push(`- Model: ${modelProvenanceText(record)}`);
  lines.push(`- Duration: ${formatDuration(record.durationMs)} · Usage: ${formatUsage(record.usage)}`);
  if (record.usageNote) lines.push(`- Usage note: ${record.usageNote}`);
  if (record.stderrTail) {
    const tail = inertChildText(record.stderrTail.split("\n").slice(-10).join("\n"));
    lines.push("- Stderr (last lines):", tail);
  }
  if (isPartialRecord(record)) {
    const partial = shownOutput({ ...record, output });
    if (partial) lines.push("", partial);
  } else if (output.trim()) lines.push("", "Output so far:", output);
  if (record.unansweredQuestions?.length) lines.push("", ...record.unansweredQuestions);
  lines.push("", sessionLine(record.taskId));
  if (record.worktree) lines.push("", worktreeBlock(record.worktree));
  // The error and stderr come from the child: nothing in them may drive the terminal that shows this.
  return stripTerminalControls(lines.join("\n"));
}
