/**
 * The one result of a blocking batch or chain: a title with the counts, then each part under its own heading
 * (its text is what a single blocking call would have returned), and for a chain that ended early the steps
 * that never ran. Pure.
 */
import type { WorkflowKind } from "./workflow.ts";
import { batchTitle, chainTitle, partHeading } from "./workflow-texts.ts";
import type { PartStatus } from "./workflow-texts.ts";

export interface FinishedPart {
  agent: string;
  status: PartStatus;
  /** Absent for a chain step refused before it started. */
  taskId?: string;
  /** The part's own result text (a single call's). */
  text: string;
}

/** The title alone: `batch of 2: 2 succeeded`, `chain of 3: ended at step 1 (worker failed); 2 steps not run`. */
export function workflowTitle(kind: WorkflowKind, total: number, finished: readonly Pick<FinishedPart, "agent" | "status">[]): string {
  const statuses = finished.map((part) => part.status);
  if (kind === "batch") return batchTitle(statuses);
  const last = finished.at(-1);
  const ended = last && last.status !== "succeeded" ? { step: finished.length, agent: last.agent, status: last.status } : undefined;
  return chainTitle(total, statuses, ended);
}

export function workflowResultText(kind: WorkflowKind, finished: readonly FinishedPart[], notRun: readonly string[] = []): string {
  const blocks = [workflowTitle(kind, finished.length + notRun.length, finished)];
  finished.forEach((part, index) => blocks.push(`${partHeading(kind, index + 1, part.agent, part.status, part.taskId)}\n${part.text}`));
  if (notRun.length > 0) blocks.push(notRun.map((agent, index) => `### Step ${finished.length + index + 1}. ${agent} not run`).join("\n"));
  return blocks.join("\n\n");
}
