/**
 * The tool in the TUI: a receipt at once, the two-step cancel, messages, and a batch or chain dispatched part by part under one receipt.
 */
import type { AgentToolResult, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { oneLine } from "../../shared/text.ts";
import type { BackgroundTasks, ChainStep } from "../../tasks/background-tasks.ts";
import { CANCEL_TOO_LATE_STATUS, MAX_AGENT_MESSAGES_PER_TASK } from "../../tasks/registry.ts";
import { readRecord, limitedOutput } from "../../records/record-store.ts";
import { resolveTaskPrefix } from "../../commands/task-commands.ts";
import { isTaskId } from "../../shared/nesting.ts";
import {
  CANCEL_NEEDS_REASON,
  CANCEL_NEEDS_TASK_ID,
  cancelAlreadyFinished,
  cancelChallenge,
  cancelInvalidTaskId,
  cancelRequested,
  cancelUnknownTask,
  workflowCancelChallenge,
  workflowCancelRequested,
  MESSAGE_NEEDS_TASK_ID,
  MESSAGE_NEEDS_TEXT,
  messageLimitReached,
  messageQueued,
  messageSteered,
  messageToFinished,
  messageToUnknown,
  messageUnsupported,
} from "../../tool/validate.ts";
import { childTextProblem } from "../../run/rpc.ts";
import type { PreparedRun } from "../../tool/prepare-dispatch.ts";
import {
  admitAll,
  prepareAll,
  type BackgroundDispatcher,
  type WorkflowAdmission,
  type AdmittedPart,
  type PreparedPart,
} from "./execute.ts";
import type { SubagentParams } from "../../tool/schema.ts";
import { newTaskId } from "../../shared/run-settings.ts";
import { withPrevious, receiptPartLine, workflowReceipt, type Workflow } from "../../workflows/workflow.ts";
import type { WorkflowMembership } from "../../records/record.ts";
import { refreshLoginsBeforeHandIn } from "./authority.ts";

/*
 * The `subagent` tool's background path (interactive TUI): a dispatch answers at once with the one-line
 * receipt; a cancel goes through the two-step challenge and confirmation.
 */
/** The longest cancel reason kept (it is quoted in the cancelled task's envelope). */
const CANCEL_REASON_MAX = 500;

export function createBackgroundDispatcher(
  tasks: () => BackgroundTasks,
  agentDir: () => string,
  now: () => number = Date.now,
): BackgroundDispatcher {
  /** `action: "cancel"` with a batch or chain id: the same two steps as for one task, for every part in flight. */
  const cancelWorkflow = (
    kind: "batch" | "chain",
    workflowId: string,
    params: SubagentParams,
  ): AgentToolResult<unknown> => {
    const running = tasks()
      .workflows.partsInFlight(workflowId)
      .flatMap((taskId) => {
        const task = tasks().registry.get(taskId);
        return task ? [{ taskId, agent: task.agent, task: task.task }] : [];
      });
    if (params.confirm !== true) {
      return {
        content: [{ type: "text", text: workflowCancelChallenge(kind, workflowId, running) }],
        details: { confirmRequired: true, taskId: workflowId },
      };
    }
    const reason = oneLine(params.reason ?? "", CANCEL_REASON_MAX);
    if (!reason) throw new Error(CANCEL_NEEDS_REASON);
    const cancelled = tasks().cancelWorkflow(workflowId, "agent", reason) ?? 0;
    return {
      content: [{ type: "text", text: workflowCancelRequested(kind, workflowId, cancelled) }],
      details: { cancelRequested: true, taskId: workflowId, reason },
    };
  };

  /**
   * The full id behind what the model passed: a whole id as it is, or the short id a person read off the widget
   * or a card (a unique start or end of a task, batch or chain in flight here); anything else stays as typed.
   */
  const inFlightId = (typed: string): string => {
    if (isTaskId(typed)) return typed;
    const running = tasks().snapshot();
    const candidates = [...running.map((task) => task.taskId), ...tasks().workflows.ids()].map((taskId) => ({
      taskId,
    }));
    const resolved = resolveTaskPrefix(typed, candidates);
    return resolved.kind === "found" ? resolved.task.taskId : typed;
  };

  return {
    tasks,

    dispatchWorkflow: (workflow, admit, ctx) => dispatchBackgroundWorkflow(workflow, admit, ctx, tasks()),

    cancel(params: SubagentParams): AgentToolResult<unknown> {
      const taskId = inFlightId((params.taskId ?? "").trim());
      if (!taskId) throw new Error(CANCEL_NEEDS_TASK_ID);
      if (!isTaskId(taskId)) throw new Error(cancelInvalidTaskId(taskId));
      const workflowKind = tasks().workflows.kindOf(taskId);
      if (workflowKind) return cancelWorkflow(workflowKind, taskId, params);
      const running = tasks().registry.get(taskId);
      if (!running) {
        const record = readRecord(agentDir(), taskId);
        throw new Error(record ? cancelAlreadyFinished(taskId, record.status) : cancelUnknownTask(taskId));
      }
      if (params.confirm !== true) {
        const lastEventAt = running.state && running.state.events > 0 ? running.state.lastEventAt : undefined;
        const text = cancelChallenge({
          taskId,
          agent: running.agent,
          task: running.task,
          elapsedMs: now() - running.dispatchedAt,
          lastProgressAgeMs: lastEventAt === undefined ? undefined : now() - lastEventAt,
          queued: running.status === "queued",
        });
        return { content: [{ type: "text", text }], details: { confirmRequired: true, taskId, agent: running.agent } };
      }
      // One line, bounded: the reason is repeated in the envelope, where a line break or `---` would break its shape.
      const reason = oneLine(params.reason ?? "", CANCEL_REASON_MAX);
      if (!reason) throw new Error(CANCEL_NEEDS_REASON);
      if (!tasks().cancel(taskId, "agent", reason))
        throw new Error(cancelAlreadyFinished(taskId, CANCEL_TOO_LATE_STATUS));
      const others = tasks()
        .snapshot()
        .filter((task) => task.taskId !== taskId)
        .map((task) => ({ taskId: task.taskId, agent: task.agent, task: task.task }));
      return {
        content: [{ type: "text", text: cancelRequested(taskId, running.agent, others) }],
        details: { cancelRequested: true, taskId, agent: running.agent, reason },
      };
    },

    message(params: SubagentParams): AgentToolResult<unknown> {
      const taskId = inFlightId((params.taskId ?? "").trim());
      if (!taskId) throw new Error(MESSAGE_NEEDS_TASK_ID);
      const text = params.message ?? "";
      if (!text.trim()) throw new Error(MESSAGE_NEEDS_TEXT);
      const textProblem = childTextProblem(text, "message");
      if (textProblem) throw new Error(textProblem);
      // An id that is no task id never touches the disk, and is echoed cut short.
      if (!isTaskId(taskId)) throw new Error(messageToUnknown(oneLine(taskId, 60)));
      const task = tasks().registry.get(taskId);
      const outcome = tasks().registry.message(taskId, "agent", text);
      switch (outcome) {
        case "steered":
        case "queued": {
          const agent = task?.agent ?? "subagent";
          const line = outcome === "steered" ? messageSteered(taskId, agent) : messageQueued(taskId, agent);
          return { content: [{ type: "text", text: line }], details: { messageSent: outcome, taskId, agent } };
        }
        case "finished":
          throw new Error(messageToFinished(taskId, readRecord(agentDir(), taskId)?.status));
        case "unsupported":
          throw new Error(messageUnsupported(taskId));
        case "limit":
          throw new Error(messageLimitReached(taskId, task?.agent ?? "subagent", MAX_AGENT_MESSAGES_PER_TASK));
        case "unknown": {
          const record = readRecord(agentDir(), taskId);
          throw new Error(record ? messageToFinished(taskId, record.status) : messageToUnknown(taskId));
        }
      }
    },
  };
}

/*
 * A batch or chain in the interactive TUI: every part is admitted before any starts (one refused part starts
 * none), the parts go to the background tasks as single tasks marked with the workflow, and the call answers at
 * once with one receipt. A batch's parts are all dispatched now; a chain's first step now, and each later step
 * by the background tasks once the step before succeeded (`{previous}` filled in from its output). One
 * combined `[subagent-result]` follows when the workflow is over (see src/tasks/background-tasks.ts).
 */
/** A workflow receipt's `details` (the tool row draws its text; programs read the ids). */
interface WorkflowReceiptDetails {
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

async function dispatchBackgroundWorkflow(
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
  const ready: PreparedPart[] =
    kind === "batch" ? prepareAll(kind, admitted) : prepareAll(kind, [firstStep(admitted[0] as AdmittedPart)]);
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
    await refreshLoginsBeforeHandIn(
      { agent: part.prepared.agent.name, handIn: part.prepared.command.handIn },
      ctx.modelRegistry,
      { hasUI: ctx.hasUI, ui: ctx.ui },
    );
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
  return {
    content: [{ type: "text", text }],
    details: { receipt: true, workflow: { id, kind, parts: started }, queued: anyQueued },
  };
}

/** A chain's first step, its `{previous}` replaced by nothing (there is no step before it). */
function firstStep(step: AdmittedPart): AdmittedPart {
  return { ...step, prepare: () => step.prepare(withPrevious(step.task, "")) };
}
