/**
 * What the model and the person read about a batch or a chain: refusals, the combined result's title and each
 * part's heading. Model-facing text uses no em dashes.
 */
import type { RunStatus } from "../run/types.ts";

/** A part's end: how its run ended, or `refused` when a later chain step was refused before it started. */
export type PartStatus = RunStatus | "refused";

export const BOTH_WORKFLOWS_MESSAGE = "Give either tasks (a batch) or chain, not both. Nothing was started.";

export function notAnArrayMessage(field: string): string {
  return `${field} must be an array of {agent, task} objects. Nothing was started.`;
}

export function emptyWorkflowMessage(field: string): string {
  return `${field} is empty: give at least one {agent, task}, or call with agent and task. Nothing was started.`;
}

export function overCapMessage(field: string, count: number, cap: number): string {
  return `${field} has ${count} entries, above the cap of ${cap} ("$maxWorkflowParts" in the user's subagent-isolation.json). Split the work. Nothing was started.`;
}

export function singleFieldsWithWorkflowMessage(field: string, names: readonly string[]): string {
  return `With ${field}, put ${names.join(", ")} inside each entry, not beside ${field}. Nothing was started.`;
}

/** A part refused before anything started: which one, and why. */
export function partRefusedMessage(label: string, index: number, agent: string | undefined, message: string): string {
  return `${label} ${index} (${agent?.trim() || "no agent"}) was refused: ${message} Nothing was started.`;
}

/** `2 succeeded, 1 failed`, in a fixed order, leaving out statuses nobody has. */
export function statusCounts(statuses: readonly PartStatus[]): string {
  const order: PartStatus[] = ["succeeded", "failed", "timed out", "cancelled", "stopped", "refused"];
  return order
    .map((status) => ({ status, count: statuses.filter((seen) => seen === status).length }))
    .filter((entry) => entry.count > 0)
    .map((entry) => `${entry.count} ${entry.status}`)
    .join(", ");
}

/** `batch of 3: 2 succeeded, 1 failed` */
export function batchTitle(statuses: readonly PartStatus[]): string {
  return `batch of ${statuses.length}: ${statusCounts(statuses)}`;
}

/** `chain of 3: 3 succeeded`, or `chain of 3: ended at step 2 (worker failed); 1 step not run` */
export function chainTitle(total: number, statuses: readonly PartStatus[], endedBy?: { step: number; agent: string; status: PartStatus }): string {
  if (!endedBy) return `chain of ${total}: ${statusCounts(statuses)}`;
  const notRun = total - statuses.length;
  const rest = notRun > 0 ? `; ${notRun} ${notRun === 1 ? "step" : "steps"} not run` : "";
  return `chain of ${total}: ended at step ${endedBy.step} (${endedBy.agent} ${endedBy.status})${rest}`;
}

/** `### 2. worker failed (taskId: <id>)` (a batch part) or `### Step 2. worker failed (taskId: <id>)` */
export function partHeading(kind: "batch" | "chain", index: number, agent: string, status: PartStatus, taskId: string | undefined): string {
  return `### ${kind === "chain" ? "Step " : ""}${index}. ${agent} ${status}${taskId ? ` (taskId: ${taskId})` : ""}`;
}

/** One part's line in a background workflow's receipt: `- 1. explore taskId: <id>` and what applies to it. */
export function receiptPartLine(kind: "batch" | "chain", index: number, agent: string, taskId: string, notes: readonly string[]): string {
  const label = kind === "chain" ? `Step ${index}.` : `${index}.`;
  return [`- ${label} ${agent} taskId: ${taskId}`, ...notes].join(" · ");
}

/**
 * The receipt of a background batch or chain: its id, each started part, the chain's steps still to come, and
 * that one `[subagent-result]` for all of it follows.
 */
export function workflowReceipt(kind: "batch" | "chain", workflowId: string, total: number, partLines: readonly string[], laterSteps: readonly string[]): string {
  const lines = [`Dispatched ${kind} of ${total}. ${kind}Id: ${workflowId}`, ...partLines];
  if (laterSteps.length > 0) {
    const first = partLines.length + 1;
    lines.push(`- ${laterSteps.map((agent, index) => `Step ${first + index}. ${agent}`).join(", ")}: each starts once the step before succeeded.`);
  }
  lines.push(`One [subagent-result] for the whole ${kind} arrives once it has ended; each part keeps its own taskId for /subagent-result and cancel.`);
  return lines.join("\n");
}
