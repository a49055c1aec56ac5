/**
 * A batch or chain read into single calls under its cap, and its combined result.
 */
import type { SubagentParams, WorkflowPart } from "../tool/schema.ts";
import type { ConfigLayer } from "../config/load.ts";
import type { RunStatus } from "../run/event-reducer.ts";

/*
 * A batch (`tasks`) or a chain (`chain`) call, read into its parts before anything starts: each part becomes the
 * parameters of a single call (the call's `agentScope` and `confirmProjectAgents` apply to every part), so every
 * part goes through the single dispatch path. Pure.
 */
export type WorkflowKind = "batch" | "chain";

/** The field each kind is called by, as in pi's official subagent example. */
const WORKFLOW_FIELD: Record<WorkflowKind, "tasks" | "chain"> = { batch: "tasks", chain: "chain" };

const DEFAULT_MAX_WORKFLOW_PARTS = 16;

export interface Workflow {
  kind: WorkflowKind;
  parts: SubagentParams[];
}

/** Top-level fields that belong to one task: with `tasks` or `chain` they go inside each part. */
const SINGLE_TASK_FIELDS = [
  "agent",
  "task",
  "sessionId",
  "model",
  "thinking",
  "context",
  "isolation",
  "tools",
  "maxTurns",
  "maxTokens",
  "maxCost",
  "verify",
] as const;

export function isWorkflowCall(params: SubagentParams): boolean {
  return params.tasks !== undefined || params.chain !== undefined;
}

/** The call's parts, or the refusal (nothing has started). `maxParts` is the cap in force. */
export function readWorkflow(
  params: SubagentParams,
  maxParts: number,
): { ok: true; workflow: Workflow } | { ok: false; message: string } {
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

/*
 * `$maxWorkflowParts`: the most parts a batch or steps a chain may have (default 16). Only the person's
 * user-level subagent-isolation.json sets it; a project file that tries is ignored with a warning, as for the
 * other limits on how much one call may start. Pure.
 */
const MAX_WORKFLOW_PARTS_KEY = "$maxWorkflowParts";

type Layer = Pick<ConfigLayer, "settings" | "filePath">;

export function readWorkflowCap(layers: { user: Layer; project: Layer }): { cap: number; warnings: string[] } {
  const warnings: string[] = [];
  let cap = DEFAULT_MAX_WORKFLOW_PARTS;
  const user = layers.user.settings ?? {};
  if (Object.hasOwn(user, MAX_WORKFLOW_PARTS_KEY)) {
    const value = user[MAX_WORKFLOW_PARTS_KEY];
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 1) cap = value;
    else
      warnings.push(
        `pi-subagent-dispatch: ${layers.user.filePath ?? "user subagent-isolation.json"}: "${MAX_WORKFLOW_PARTS_KEY}" must be a whole number of at least 1; using ${DEFAULT_MAX_WORKFLOW_PARTS}`,
      );
  }
  if (Object.hasOwn(layers.project.settings ?? {}, MAX_WORKFLOW_PARTS_KEY)) {
    warnings.push(
      `pi-subagent-dispatch: ${layers.project.filePath ?? "project subagent-isolation.json"}: "${MAX_WORKFLOW_PARTS_KEY}" can only be set in your user-level subagent-isolation.json; ignored`,
    );
  }
  return { cap, warnings };
}

/*
 * What the model and the person read about a batch or a chain: refusals, the combined result's title and each
 * part's heading. Model-facing text uses no em dashes.
 */
/** A part's end: how its run ended, or `refused` when a later chain step was refused before it started. */
export type PartStatus = RunStatus | "refused";

const BOTH_WORKFLOWS_MESSAGE = "Give either tasks (a batch) or chain, not both. Nothing was started.";

function notAnArrayMessage(field: string): string {
  return `${field} must be an array of {agent, task} objects. Nothing was started.`;
}

function emptyWorkflowMessage(field: string): string {
  return `${field} is empty: give at least one {agent, task}, or call with agent and task. Nothing was started.`;
}

function overCapMessage(field: string, count: number, cap: number): string {
  return `${field} has ${count} entries, above the cap of ${cap} ("$maxWorkflowParts" in the user's subagent-isolation.json). Split the work. Nothing was started.`;
}

function singleFieldsWithWorkflowMessage(field: string, names: readonly string[]): string {
  return `With ${field}, put ${names.join(", ")} inside each entry, not beside ${field}. Nothing was started.`;
}

/** A part refused before anything started: which one, and why. */
export function partRefusedMessage(label: string, index: number, agent: string | undefined, message: string): string {
  return `${label} ${index} (${agent?.trim() || "no agent"}) was refused: ${message} Nothing was started.`;
}

/** `2 succeeded, 1 failed`, in a fixed order, leaving out statuses nobody has. */
function statusCounts(statuses: readonly PartStatus[]): string {
  const order: PartStatus[] = ["succeeded", "failed", "timed out", "cancelled", "stopped", "refused"];
  return order
    .map((status) => ({ status, count: statuses.filter((seen) => seen === status).length }))
    .filter((entry) => entry.count > 0)
    .map((entry) => `${entry.count} ${entry.status}`)
    .join(", ");
}

/** `batch of 3: 2 succeeded, 1 failed` */
function batchTitle(statuses: readonly PartStatus[]): string {
  return `batch of ${statuses.length}: ${statusCounts(statuses)}`;
}

/** `chain of 3: 3 succeeded`, or `chain of 3: ended at step 2 (worker failed); 1 step not run` */
function chainTitle(
  total: number,
  statuses: readonly PartStatus[],
  endedBy?: { step: number; agent: string; status: PartStatus },
): string {
  if (!endedBy) return `chain of ${total}: ${statusCounts(statuses)}`;
  const notRun = total - statuses.length;
  const rest = notRun > 0 ? `; ${notRun} ${notRun === 1 ? "step" : "steps"} not run` : "";
  return `chain of ${total}: ended at step ${endedBy.step} (${endedBy.agent} ${endedBy.status})${rest}`;
}

/** `### 2. worker failed (taskId: <id>)` (a batch part) or `### Step 2. worker failed (taskId: <id>)` */
export function partHeading(
  kind: "batch" | "chain",
  index: number,
  agent: string,
  status: PartStatus,
  taskId: string | undefined,
): string {
  return `### ${kind === "chain" ? "Step " : ""}${index}. ${agent} ${status}${taskId ? ` (taskId: ${taskId})` : ""}`;
}

/** One part's line in a background workflow's receipt: `- 1. explore taskId: <id>` and what applies to it. */
export function receiptPartLine(
  kind: "batch" | "chain",
  index: number,
  agent: string,
  taskId: string,
  notes: readonly string[],
): string {
  const label = kind === "chain" ? `Step ${index}.` : `${index}.`;
  return [`- ${label} ${agent} taskId: ${taskId}`, ...notes].join(" · ");
}

/**
 * The receipt of a background batch or chain: its id, each started part, the chain's steps still to come, and
 * that one `[subagent-result]` for all of it follows.
 */
export function workflowReceipt(
  kind: "batch" | "chain",
  workflowId: string,
  total: number,
  partLines: readonly string[],
  laterSteps: readonly string[],
): string {
  const lines = [`Dispatched ${kind} of ${total}. ${kind}Id: ${workflowId}`, ...partLines];
  if (laterSteps.length > 0) {
    const first = partLines.length + 1;
    lines.push(
      `- ${laterSteps.map((agent, index) => `Step ${first + index}. ${agent}`).join(", ")}: each starts once the step before succeeded.`,
    );
  }
  lines.push(
    `One [subagent-result] for the whole ${kind} arrives once it has ended; each part keeps its own taskId for /subagent-result and cancel.`,
  );
  return lines.join("\n");
}

/*
 * The one result of a blocking batch or chain: a title with the counts, then each part under its own heading
 * (its text is what a single blocking call would have returned), and for a chain that ended early the steps
 * that never ran. Pure.
 */
export interface FinishedPart {
  agent: string;
  status: PartStatus;
  /** Absent for a chain step refused before it started. */
  taskId?: string;
  /** The part's own result text (a single call's). */
  text: string;
}

/** The title alone: `batch of 2: 2 succeeded`, `chain of 3: ended at step 1 (worker failed); 2 steps not run`. */
export function workflowTitle(
  kind: WorkflowKind,
  total: number,
  finished: readonly Pick<FinishedPart, "agent" | "status">[],
): string {
  const statuses = finished.map((part) => part.status);
  if (kind === "batch") return batchTitle(statuses);
  const last = finished.at(-1);
  const ended =
    last && last.status !== "succeeded" ? { step: finished.length, agent: last.agent, status: last.status } : undefined;
  return chainTitle(total, statuses, ended);
}

/**
 * `workflowId`, when given, follows the title on a line of its own (`chainId: <id>`, as a background receipt
 * names it): the id `/subagent-trace` and `/subagent-result` take for the whole workflow.
 */
export function workflowResultText(
  kind: WorkflowKind,
  finished: readonly FinishedPart[],
  notRun: readonly string[] = [],
  workflowId?: string,
): string {
  const title = workflowTitle(kind, finished.length + notRun.length, finished);
  const blocks = [workflowId ? `${title}\n${kind}Id: ${workflowId}` : title];
  finished.forEach((part, index) =>
    blocks.push(`${partHeading(kind, index + 1, part.agent, part.status, part.taskId)}\n${part.text}`),
  );
  if (notRun.length > 0)
    blocks.push(notRun.map((agent, index) => `### Step ${finished.length + index + 1}. ${agent} not run`).join("\n"));
  return blocks.join("\n\n");
}
