/**
 * A blocking batch or chain (print, JSON and RPC mode) on disk: the same kind of record a background one has,
 * so its id finds all of it later (`/subagent-trace`, `/subagent-result`). Its result went back as the tool's
 * return value, so the record is delivered when it is made; its envelope is that result's text. Pure.
 */
import type { WorkflowRecord } from "../records/record.ts";
import { workflowCardDetails, type EndedWorkflow } from "./workflow-tracker.ts";

export interface BlockingWorkflowEnd extends EndedWorkflow {
  /** The combined result the main agent got. */
  text: string;
  finishedAt: number;
}

export function blockingWorkflowRecord(end: BlockingWorkflowEnd): WorkflowRecord {
  const workflow: EndedWorkflow = {
    id: end.id,
    kind: end.kind,
    parts: end.parts,
    notRun: end.notRun,
    ...(end.parentSessionId ? { parentSessionId: end.parentSessionId } : {}),
  };
  return {
    version: 1,
    workflowId: end.id,
    kind: end.kind,
    ...(end.parentSessionId ? { parentSessionId: end.parentSessionId } : {}),
    partIds: end.parts.flatMap((part) => ("record" in part ? [part.record.taskId] : [])),
    finishedAt: end.finishedAt,
    envelope: end.text,
    details: workflowCardDetails(workflow),
    delivered: true,
    deliveredAt: end.finishedAt,
  };
}
