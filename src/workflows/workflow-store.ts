/**
 * Workflow records on disk: `<agent dir>/subagent-sessions/.workflows/<id>.json`, one per background batch or
 * chain that ended, holding its combined envelope until it is delivered. Written atomically; read only as a
 * regular file under the record cap, never through a link (state-file.ts). The folder's leading dot keeps it
 * out of every listing of task folders.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../shared/atomic-file.ts";
import { readStateJsonSync, RECORD_MAX_BYTES } from "../shared/state-file.ts";
import { subagentSessionsDir } from "../shared/paths.ts";
import { isTaskId } from "../shared/task-id.ts";
import type { WorkflowRecord } from "../records/types.ts";

export const WORKFLOWS_DIR_NAME = ".workflows";

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
  return record.version === 1 && typeof record.workflowId === "string" && typeof record.envelope === "string" && Array.isArray(record.partIds);
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
  return names.filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -".json".length)).filter(isTaskId).sort().reverse();
}
