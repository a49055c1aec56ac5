/**
 * What a workflow's result card shows, made from its ended parts: the title with the counts, each part's
 * status, time and usage, the usage of all parts together and the time from the first dispatch to the last
 * end. Pure.
 */
import { emptyUsage } from "../shared/format.ts";
import type { UsageTotals } from "../shared/format.ts";
import { workflowTitle } from "./workflow-result.ts";
import type { TaskRecord, WorkflowCardDetails, WorkflowCardPart } from "../records/types.ts";
import type { EndedPart, EndedWorkflow } from "./workflow-tracker.ts";

function cardPart(part: EndedPart, index: number): WorkflowCardPart {
  if ("refused" in part) return { index: index + 1, agent: part.refused.agent, status: "refused" };
  const record = part.record;
  return { index: index + 1, agent: record.agent, status: record.status, taskId: record.taskId, durationMs: record.durationMs, usage: record.usage };
}

function addUsage(total: UsageTotals, usage: UsageTotals): UsageTotals {
  return {
    turns: total.turns + usage.turns,
    input: total.input + usage.input,
    output: total.output + usage.output,
    cacheRead: total.cacheRead + usage.cacheRead,
    cacheWrite: total.cacheWrite + usage.cacheWrite,
    cost: total.cost + usage.cost,
    contextTokens: Math.max(total.contextTokens, usage.contextTokens),
  };
}

export function workflowCardDetails(workflow: EndedWorkflow): WorkflowCardDetails {
  const parts = workflow.parts.map(cardPart);
  const records = workflow.parts.flatMap((part): TaskRecord[] => ("record" in part ? [part.record] : []));
  const total = parts.length + workflow.notRun.length;
  const title = workflowTitle(workflow.kind, total, parts);
  const first = Math.min(...records.map((record) => record.dispatchedAt));
  const last = Math.max(...records.map((record) => record.finishedAt));
  const allSucceeded = workflow.notRun.length === 0 && parts.every((part) => part.status === "succeeded");
  return {
    taskId: workflow.id,
    agent: title,
    task: parts.map((part) => `${part.index}. ${part.agent}`).join(", "),
    status: allSucceeded ? "succeeded" : "failed",
    durationMs: records.length > 0 ? Math.max(0, last - first) : 0,
    usage: records.reduce((sum, record) => addUsage(sum, record.usage), emptyUsage()),
    workflow: { kind: workflow.kind, parts },
  };
}
