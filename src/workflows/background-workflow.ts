/**
 * A background batch or chain on disk and to the model: its record and its one envelope.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync, readStateJsonSync, RECORD_MAX_BYTES } from "../shared/safe-write.ts";
import { subagentSessionsDir } from "../shared/this-process.ts";
import { isTaskId } from "../shared/nesting.ts";
import type { WorkflowRecord, TaskRecord } from "../records/record.ts";
import { oneLine, stripTerminalControls } from "../shared/text.ts";
import { workflowTitle, partHeading } from "./workflow.ts";
import type { EndedPart, EndedWorkflow, WorkflowKind } from "./workflow-tracker.ts";
import { worktreeChangesLines } from "../worktree/finish-decision.ts";
import {
  ENVELOPE_TAG,
  envelopeBody,
  inFlightBlock,
  metadataLines,
  TRIGGER_LINE,
  type EnvelopeLimits,
  type InFlightTask,
} from "../delivery/envelope.ts";

/*
 * Workflow records on disk: `<agent dir>/subagent-sessions/.workflows/<id>.json`, one per background batch or
 * chain that ended, holding its combined envelope until it is delivered. Written atomically; read only as a
 * regular file under the record cap, never through a link (`readStateJsonSync` in src/shared/safe-write.ts). The
 * folder's leading dot keeps it out of every listing of task folders.
 */
const WORKFLOWS_DIR_NAME = ".workflows";

export function workflowRecordPath(agentDir: string, workflowId: string): string {
  return join(subagentSessionsDir(agentDir), WORKFLOWS_DIR_NAME, `${workflowId}.json`);
}

export function writeWorkflowRecord(agentDir: string, record: WorkflowRecord): void {
  mkdirSync(join(subagentSessionsDir(agentDir), WORKFLOWS_DIR_NAME), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(workflowRecordPath(agentDir, record.workflowId), `${JSON.stringify(record, null, 2)}\n`);
}

function isWorkflowRecord(value: unknown): value is WorkflowRecord {
  if (!value || typeof value !== "object") return false;
  const record = value as Partial<WorkflowRecord>;
  return (
    record.version === 1 &&
    typeof record.workflowId === "string" &&
    typeof record.envelope === "string" &&
    Array.isArray(record.partIds)
  );
}

export function readWorkflowRecord(agentDir: string, workflowId: string): WorkflowRecord | undefined {
  if (!isTaskId(workflowId)) return undefined;
  const parsed = readStateJsonSync(workflowRecordPath(agentDir, workflowId), RECORD_MAX_BYTES);
  return isWorkflowRecord(parsed) ? parsed : undefined;
}

/** The ids of the workflow records on disk (for ids typed after a command); none when the folder is missing. */
export function listWorkflowIds(agentDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(subagentSessionsDir(agentDir), WORKFLOWS_DIR_NAME));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith(".json"))
    .map((name) => name.slice(0, -".json".length))
    .filter(isTaskId)
    .sort()
    .reverse();
}

/*
 * The one `[subagent-result]` envelope of a background batch or chain, sent once every part has ended: a title
 * with the counts, the spec's trigger line, one metadata block per part (the lines a single envelope has), the
 * in-flight block, then each part's output under its own heading. Built only from the parts' records.
 *
 *   ## [subagent-result] batch of 2: 1 succeeded, 1 failed (batchId: <id>)
 *
 *   > [subagent-result] This is a task-completion notification, …
 *
 *   ### 1. explore succeeded (taskId: <id>)
 *   - Status: succeeded
 *   …
 *   No other tasks were in flight when this batch ended.
 *
 *   ---
 *   ### 1. explore succeeded (taskId: <id>)
 *   <its output>
 */
const REFUSAL_LINE_MAX = 500;

function agentOf(part: EndedPart): string {
  return "record" in part ? part.record.agent : part.refused.agent;
}

function statusOf(part: EndedPart): TaskRecord["status"] | "refused" {
  return "record" in part ? part.record.status : "refused";
}

/** `batchId` or `chainId`: the id `/subagent-cancel` takes for the whole workflow. */
function workflowIdLabel(kind: WorkflowKind): string {
  return `${kind}Id`;
}

function workflowEnvelopeTitle(workflow: EndedWorkflow): string {
  const total = workflow.parts.length + workflow.notRun.length;
  const title = workflowTitle(
    workflow.kind,
    total,
    workflow.parts.map((part) => ({ agent: agentOf(part), status: statusOf(part) })),
  );
  return `## ${ENVELOPE_TAG} ${title} (${workflowIdLabel(workflow.kind)}: ${workflow.id})`;
}

function heading(workflow: EndedWorkflow, part: EndedPart, index: number): string {
  return partHeading(
    workflow.kind,
    index + 1,
    agentOf(part),
    statusOf(part),
    "record" in part ? part.record.taskId : undefined,
  );
}

function metadataBlock(workflow: EndedWorkflow, part: EndedPart, index: number, limits: EnvelopeLimits): string {
  const lines = [heading(workflow, part, index)];
  if ("record" in part) {
    lines.push(...metadataLines(part.record, limits));
    if (part.record.worktree) lines.push(...worktreeChangesLines(part.record.worktree));
  } else {
    lines.push(`- Refused: ${oneLine(part.refused.message, REFUSAL_LINE_MAX)}`);
  }
  return lines.join("\n");
}

function outputBlock(workflow: EndedWorkflow, part: EndedPart, index: number): string {
  const body = "record" in part ? envelopeBody(part.record) : part.refused.message;
  return `${heading(workflow, part, index)}\n${body}`;
}

/** The steps never started: `### Step 3. reviewer not run`, one line each. */
function notRunLines(workflow: EndedWorkflow): string[] {
  return workflow.notRun.map((agent, index) => `### Step ${workflow.parts.length + index + 1}. ${agent} not run`);
}

export function buildWorkflowEnvelope(
  workflow: EndedWorkflow,
  others: readonly InFlightTask[],
  limits: EnvelopeLimits,
): string {
  const blocks = [workflowEnvelopeTitle(workflow), "", TRIGGER_LINE, ""];
  workflow.parts.forEach((part, index) => blocks.push(metadataBlock(workflow, part, index, limits), ""));
  const notRun = notRunLines(workflow);
  if (notRun.length > 0) blocks.push(notRun.join("\n"), "");
  blocks.push(inFlightBlock(others, workflow.kind), "", "---");
  blocks.push(workflow.parts.map((part, index) => outputBlock(workflow, part, index)).join("\n\n"));
  // pi draws a queued steer message as it is: no control sequence from a child may reach the terminal.
  return stripTerminalControls(blocks.join("\n"));
}
