/**
 * A blocking batch or chain (print, JSON and RPC mode): every part goes through the single dispatch path
 * (`admitPart`, its `prepare`, then `runBlocking`), and the call returns one combined result. A batch admits
 * every part before it prepares any (one refused part starts none and leaves nothing on disk) and runs them side by side, at most `maxConcurrent` at a time; a chain
 * runs its steps one after another, each step's `{previous}` replaced by the output of the step before, and ends
 * at the first step that does not succeed.
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { AgentToolResult, AgentToolUpdateCallback, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { limitedOutput } from "../../records/output-limit.ts";
import type { SubagentResultDetails } from "../../records/details.ts";
import { withPrevious } from "../../workflows/workflow.ts";
import type { Workflow, WorkflowKind } from "../../workflows/workflow.ts";
import { workflowResultText } from "../../workflows/workflow-result.ts";
import type { FinishedPart } from "../../workflows/workflow-result.ts";
import { partRefusedMessage } from "../../workflows/workflow-texts.ts";
import type { SubagentParams } from "../../tool/schema.ts";
import type { AdmittedPart, BlockingResult, PreparedPart } from "./register-tool.ts";

export interface WorkflowDeps {
  toolCallId: string;
  ctx: ExtensionContext;
  signal: AbortSignal | undefined;
  onUpdate: AgentToolUpdateCallback<unknown> | undefined;
  maxConcurrent: number;
  admitPart: (params: SubagentParams, toolCallId: string, ctx: ExtensionContext, reservedPlace?: () => void) => Promise<AdmittedPart>;
  /** Takes a batch's fan-out places at once (see `WorkflowAdmission.reserve`). */
  reservePlaces: (count: number, ctx: ExtensionContext) => Promise<(() => void)[] | undefined>;
  runBlocking: (part: PreparedPart, ctx: ExtensionContext, signal: AbortSignal | undefined, onUpdate: AgentToolUpdateCallback<unknown> | undefined) => Promise<BlockingResult>;
}

/** The combined result's `details`: `succeeded` only when the whole workflow did what it was for. */
export interface WorkflowDetails {
  kind: WorkflowKind;
  status: "succeeded" | "failed";
  parts: SubagentResultDetails[];
}

/**
 * Gives back what preparing took for a part that will never run: its lock, prompt file, worktree, fan-out place,
 * and the folder of a new session (a resumed session's folder is the earlier task's, and stays).
 */
export function abandon(part: PreparedPart): void {
  part.prepared.release();
  part.prepared.worktree?.discard();
  part.endBlocking?.();
  if (!part.prepared.resumed) rmSync(dirname(part.prepared.sessionFile), { recursive: true, force: true });
}

function finishedPart(result: BlockingResult): FinishedPart {
  return { agent: result.record.agent, status: result.record.status, taskId: result.record.taskId, text: result.text };
}

/** Each part's progress, labelled with its place (`[2/3] worker: ⚡ bash (00:04)`). */
function partProgress(deps: WorkflowDeps, index: number, total: number): AgentToolUpdateCallback<unknown> | undefined {
  const onUpdate = deps.onUpdate;
  if (!onUpdate) return undefined;
  return (update) => {
    const text = update.content.map((item) => (item.type === "text" ? item.text : "")).join("");
    onUpdate({ content: [{ type: "text", text: `[${index + 1}/${total}] ${text}` }], details: { part: index + 1, ...(update.details as object | undefined) } });
  };
}

export function partLabel(kind: WorkflowKind): string {
  return kind === "chain" ? "Step" : "Part";
}

/** How a workflow's parts are admitted: their fan-out places first, all at once, then each part in order. */
export interface WorkflowAdmission {
  /**
   * Takes `count` places in the run's fan-out count together (one give-back function a place), or throws the
   * refusal; undefined when nothing counts. Taken together so that batches sent side by side in one message do
   * not each take a few places, then all fail on the cap with a count of tasks that never ran.
   */
  reserve: (count: number) => Promise<(() => void)[] | undefined>;
  /** One part, under its reserved place. */
  admit: (params: SubagentParams, reservedPlace?: () => void) => Promise<AdmittedPart>;
}

/** Admits every part in order; the first refusal is thrown, naming the part (nothing was taken yet). */
export async function admitAll(kind: WorkflowKind, parts: readonly SubagentParams[], admission: WorkflowAdmission): Promise<AdmittedPart[]> {
  const places = await admission.reserve(parts.length);
  const admitted: AdmittedPart[] = [];
  for (const [index, params] of parts.entries()) {
    try {
      admitted.push(await admission.admit(params, places?.[index]));
    } catch (error) {
      // None starts: every place goes back to the run's fan-out count (each give-back works once).
      for (const part of admitted) part.withdraw?.();
      for (const giveBack of places ?? []) giveBack();
      throw new Error(partRefusedMessage(partLabel(kind), index + 1, params.agent, error instanceof Error ? error.message : String(error)));
    }
  }
  return admitted;
}

/** Prepares every admitted part; a refusal gives back what the parts before it took, and is thrown. */
export function prepareAll(kind: WorkflowKind, admitted: readonly AdmittedPart[]): PreparedPart[] {
  const prepared: PreparedPart[] = [];
  for (const [index, part] of admitted.entries()) {
    try {
      prepared.push(part.prepare());
    } catch (error) {
      for (const done of prepared) abandon(done);
      for (const part of admitted) part.withdraw?.();
      throw new Error(partRefusedMessage(partLabel(kind), index + 1, part.agent, error instanceof Error ? error.message : String(error)));
    }
  }
  return prepared;
}

async function runBatch(parts: readonly SubagentParams[], deps: WorkflowDeps): Promise<BlockingResult[]> {
  const admitted = await admitAll("batch", parts, {
    reserve: (count) => deps.reservePlaces(count, deps.ctx),
    admit: (params, place) => deps.admitPart(params, deps.toolCallId, deps.ctx, place),
  });
  const prepared = prepareAll("batch", admitted);
  const results: BlockingResult[] = new Array<BlockingResult>(prepared.length);
  let next = 0;
  const lane = async () => {
    while (next < prepared.length) {
      const index = next++;
      results[index] = await deps.runBlocking(prepared[index]!, deps.ctx, deps.signal, partProgress(deps, index, prepared.length));
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, deps.maxConcurrent), prepared.length) }, lane));
  return results;
}

export async function runBlockingWorkflow(workflow: Workflow, deps: WorkflowDeps): Promise<AgentToolResult<WorkflowDetails>> {
  const { kind, parts } = workflow;
  const finished: FinishedPart[] = [];
  const details: SubagentResultDetails[] = [];
  const notRun: string[] = [];
  if (kind === "batch") {
    for (const result of await runBatch(parts, deps)) {
      finished.push(finishedPart(result));
      details.push(result.details);
    }
  } else {
    let previous = "";
    for (const [index, step] of parts.entries()) {
      const ended = finished.length > 0 && finished.at(-1)!.status !== "succeeded";
      if (ended || deps.signal?.aborted) {
        notRun.push(step.agent?.trim() || "no agent");
        continue;
      }
      const params = { ...step, task: withPrevious(step.task ?? "", previous) };
      let part: PreparedPart;
      try {
        part = (await deps.admitPart(params, deps.toolCallId, deps.ctx)).prepare();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (index === 0) throw new Error(partRefusedMessage(partLabel("chain"), 1, step.agent, message));
        finished.push({ agent: step.agent?.trim() || "no agent", status: "refused", text: message });
        continue;
      }
      const result = await deps.runBlocking(part, deps.ctx, deps.signal, partProgress(deps, index, parts.length));
      finished.push(finishedPart(result));
      details.push(result.details);
      previous = limitedOutput(result.record);
    }
  }
  const allSucceeded = finished.length === parts.length && finished.every((part) => part.status === "succeeded");
  // A batch whose parts partly failed still did its work: only a batch with no success counts as an error.
  const succeeded = kind === "batch" ? finished.some((part) => part.status === "succeeded") : allSucceeded;
  return {
    content: [{ type: "text", text: workflowResultText(kind, finished, notRun) }],
    details: { kind, status: succeeded ? "succeeded" : "failed", parts: details },
  };
}
