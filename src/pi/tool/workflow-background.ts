/**
 * A batch or chain in the interactive TUI: every part is admitted before any starts (one refused part starts
 * none), the parts go to the background tasks as single tasks marked with the workflow, and the call answers at
 * once with one receipt. A batch's parts are all dispatched now; a chain's first step now, and each later step
 * by the background tasks once the step before succeeded (`{previous}` filled in from its output). One
 * combined `[subagent-result]` follows when the workflow is over (see src/tasks/background-tasks.ts).
 */
import type { AgentToolResult, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { BackgroundTasks, ChainStep } from "../../tasks/background-tasks.ts";
import { limitedOutput } from "../../records/output-limit.ts";
import { newTaskId } from "../../shared/new-task-id.ts";
import type { PreparedRun } from "../../tool/prepare-dispatch.ts";
import { withPrevious } from "../../workflows/workflow.ts";
import type { Workflow } from "../../workflows/workflow.ts";
import { receiptPartLine, workflowReceipt } from "../../workflows/workflow-texts.ts";
import type { WorkflowMembership } from "../../records/types.ts";
import { admitAll, prepareAll } from "./workflow-dispatch.ts";
import type { WorkflowAdmission } from "./workflow-dispatch.ts";
import { refreshLoginsBeforeHandIn } from "./refresh-before-hand-in.ts";
import type { AdmittedPart, PreparedPart } from "./register-tool.ts";

/** A workflow receipt's `details` (the tool row draws its text; programs read the ids). */
export interface WorkflowReceiptDetails {
  receipt: true;
  workflow: { id: string; kind: Workflow["kind"]; parts: Array<{ taskId: string; agent: string }> };
  /** True when a part waits for a slot. */
  queued: boolean;
}

/** What the receipt says of one part besides its id: queued, its sandbox, what the tool ceiling cut. */
function partNotes(prepared: PreparedRun, queued: boolean): string[] {
  const notes: string[] = [];
  if (queued) notes.push("queued");
  if (prepared.origin?.sandbox) notes.push(`Sandbox: ${prepared.origin.sandbox}`);
  if (prepared.origin?.toolsNotGranted) notes.push(prepared.origin.toolsNotGranted);
  return notes;
}

export async function dispatchBackgroundWorkflow(
  workflow: Workflow,
  admission: WorkflowAdmission,
  ctx: ExtensionContext,
  tasks: BackgroundTasks,
): Promise<AgentToolResult<WorkflowReceiptDetails>> {
  const { kind, parts } = workflow;
  const admitted = await admitAll(kind, parts, admission);
  const id = newTaskId();
  const parentSessionId = ctx.sessionManager.getSessionId();
  const membership = (index: number): WorkflowMembership => ({ id, kind, index: index + 1, total: admitted.length });
  const agents = admitted.map((part) => part.agent);

  // A batch takes every part's session and worktree now; a chain only its first step's (the rest wait for output).
  const ready: PreparedPart[] = kind === "batch" ? prepareAll(kind, admitted) : prepareAll(kind, [firstStep(admitted[0] as AdmittedPart)]);
  const continueChain = (index: number, previous: Parameters<typeof limitedOutput>[0]): ChainStep => {
    const step = admitted[index];
    if (!step) return { refused: `step ${index + 1} does not exist` };
    try {
      const part = step.prepare(withPrevious(step.task, limitedOutput(previous)));
      return { prepared: part.prepared, askPerson: part.askPerson };
    } catch (error) {
      return { refused: error instanceof Error ? error.message : String(error) };
    }
  };
  // Each ready part's login renewed before it is queued (a later chain step starts with the file as it is then).
  for (const part of ready) {
    await refreshLoginsBeforeHandIn({ agent: part.prepared.agent.name, handIn: part.prepared.command.handIn }, ctx.modelRegistry, { hasUI: ctx.hasUI, ui: ctx.ui });
  }
  tasks.beginWorkflow({ id, kind, agents, parentSessionId }, kind === "chain" ? continueChain : undefined);

  const lines: string[] = [];
  const started: Array<{ taskId: string; agent: string }> = [];
  let anyQueued = false;
  for (const [index, part] of ready.entries()) {
    const result = tasks.dispatch(part.prepared, parentSessionId, part.askPerson, membership(index));
    const queued = !("failed" in result) && !result.started;
    anyQueued ||= queued;
    const notes = "failed" in result ? [`could not start: ${result.errorMessage}`] : partNotes(part.prepared, queued);
    lines.push(receiptPartLine(kind, index + 1, part.prepared.agent.name, part.prepared.taskId, notes));
    started.push({ taskId: part.prepared.taskId, agent: part.prepared.agent.name });
  }
  const text = workflowReceipt(kind, id, admitted.length, lines, agents.slice(ready.length));
  return { content: [{ type: "text", text }], details: { receipt: true, workflow: { id, kind, parts: started }, queued: anyQueued } };
}

/** A chain's first step, its `{previous}` replaced by nothing (there is no step before it). */
function firstStep(step: AdmittedPart): AdmittedPart {
  return { ...step, prepare: () => step.prepare(withPrevious(step.task, "")) };
}
