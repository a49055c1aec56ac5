/**
 * A batch (`tasks`) or a chain (`chain`) call, read into its parts before anything starts: each part becomes the
 * parameters of a single call (the call's `agentScope` and `confirmProjectAgents` apply to every part), so every
 * part goes through the single dispatch path. Pure.
 */
import type { SubagentParams, WorkflowPart } from "../tool/schema.ts";
import { notAnArrayMessage, emptyWorkflowMessage, overCapMessage, singleFieldsWithWorkflowMessage, BOTH_WORKFLOWS_MESSAGE } from "./workflow-texts.ts";

export type WorkflowKind = "batch" | "chain";

/** The field each kind is called by, as in pi's official subagent example. */
export const WORKFLOW_FIELD: Record<WorkflowKind, "tasks" | "chain"> = { batch: "tasks", chain: "chain" };

export const DEFAULT_MAX_WORKFLOW_PARTS = 16;

export interface Workflow {
  kind: WorkflowKind;
  parts: SubagentParams[];
}

/** Top-level fields that belong to one task: with `tasks` or `chain` they go inside each part. */
const SINGLE_TASK_FIELDS = ["agent", "task", "sessionId", "model", "thinking", "context", "isolation", "tools", "maxTurns", "maxTokens", "maxCost"] as const;

export function isWorkflowCall(params: SubagentParams): boolean {
  return params.tasks !== undefined || params.chain !== undefined;
}

/** The call's parts, or the refusal (nothing has started). `maxParts` is the cap in force. */
export function readWorkflow(params: SubagentParams, maxParts: number): { ok: true; workflow: Workflow } | { ok: false; message: string } {
  if (params.tasks !== undefined && params.chain !== undefined) return { ok: false, message: BOTH_WORKFLOWS_MESSAGE };
  const kind: WorkflowKind = params.tasks !== undefined ? "batch" : "chain";
  const field = WORKFLOW_FIELD[kind];
  const raw: unknown = params[field];
  if (!Array.isArray(raw)) return { ok: false, message: notAnArrayMessage(field) };
  if (raw.length === 0) return { ok: false, message: emptyWorkflowMessage(field) };
  if (raw.length > maxParts) return { ok: false, message: overCapMessage(field, raw.length, maxParts) };
  const stray = SINGLE_TASK_FIELDS.filter((name) => params[name] !== undefined);
  if (stray.length > 0) return { ok: false, message: singleFieldsWithWorkflowMessage(field, stray) };
  const parts = (raw as unknown[]).map((part): SubagentParams => {
    const fields = (typeof part === "object" && part !== null ? part : {}) as Partial<WorkflowPart>;
    return { ...fields, agentScope: params.agentScope, confirmProjectAgents: params.confirmProjectAgents };
  });
  return { ok: true, workflow: { kind, parts } };
}

/** A chain step's task with every `{previous}` replaced by the step before's output (empty for the first step). */
export function withPrevious(task: string, previous: string): string {
  return task.split("{previous}").join(previous);
}
