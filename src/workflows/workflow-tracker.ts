/**
 * A background batch or chain (pure): which parts ended and what comes next, and its card's details.
 */
import type { TaskRecord, WorkflowMembership, WorkflowCardDetails, WorkflowCardPart } from "../records/record.ts";
import { emptyUsage, type UsageTotals } from "../shared/text.ts";
import { workflowTitle } from "./workflow.ts";

/*
 * The background batches and chains of this pi, while any part is still to end: which parts ended, what a chain
 * does next, and when the workflow is over (then its one combined envelope is due). A batch is over when every
 * part ended; a chain goes on to its next step only after a step that succeeded, and ends at the first step that
 * did not (or was refused, or when the whole chain was cancelled). Pure: starting a step is the caller's.
 */
export type WorkflowKind = WorkflowMembership["kind"];

/** A part of a workflow once it ended: its record, or (a chain step) the refusal that kept it from starting. */
export type EndedPart = { record: TaskRecord } | { refused: { agent: string; message: string } };

export interface EndedWorkflow {
  id: string;
  kind: WorkflowKind;
  parentSessionId?: string;
  /** Parts in order, as far as they got. */
  parts: readonly EndedPart[];
  /** The agents of the chain steps that never started (after the step that ended the chain). */
  notRun: readonly string[];
}

export interface WorkflowStart {
  id: string;
  kind: WorkflowKind;
  /** Every part's agent, in order (a chain's steps included before they start). */
  agents: readonly string[];
  parentSessionId?: string;
}

/** What follows a part's end: wait for the other parts, start the chain's next step, or deliver the workflow. */
export type PartEndedOutcome =
  | { next: "wait" }
  | { next: "step"; index: number; previous: TaskRecord }
  | { next: "deliver"; workflow: EndedWorkflow };

interface Tracked {
  start: WorkflowStart;
  /** Ended parts by index (0-based). */
  ended: Map<number, EndedPart>;
  /** Task ids of the parts started so far, by index. */
  started: Map<number, string>;
  /** Set once the whole chain was cancelled: no further step starts. */
  stopped: boolean;
}

export class WorkflowTracker {
  private readonly workflows: Map<string, Tracked> = new Map();

  begin(start: WorkflowStart): void {
    this.workflows.set(start.id, { start, ended: new Map(), started: new Map(), stopped: false });
  }

  has(id: string): boolean {
    return this.workflows.has(id);
  }

  ids(): string[] {
    return [...this.workflows.keys()];
  }

  kindOf(id: string): WorkflowKind | undefined {
    return this.workflows.get(id)?.start.kind;
  }

  /** A part was handed to the registry under this task id. */
  partStarted(id: string, index: number, taskId: string): void {
    this.workflows.get(id)?.started.set(index, taskId);
  }

  /** The task ids of the parts started and not yet ended. */
  partsInFlight(id: string): string[] {
    const tracked = this.workflows.get(id);
    if (!tracked) return [];
    return [...tracked.started.entries()].filter(([index]) => !tracked.ended.has(index)).map(([, taskId]) => taskId);
  }

  /** The whole workflow is being cancelled: a chain starts no further step. */
  stop(id: string): void {
    const tracked = this.workflows.get(id);
    if (tracked) tracked.stopped = true;
  }

  /** A part's record was made. `canContinue` is false while pi shuts down (a chain then starts nothing more). */
  partEnded(record: TaskRecord, canContinue: boolean): PartEndedOutcome {
    const membership = record.workflow;
    const tracked = membership && this.workflows.get(membership.id);
    if (!membership || !tracked) return { next: "wait" };
    const index = membership.index - 1;
    tracked.ended.set(index, { record });
    const total = tracked.start.agents.length;
    if (tracked.start.kind === "batch") return tracked.ended.size >= total ? this.deliver(tracked) : { next: "wait" };
    const goOn = record.status === "succeeded" && index + 1 < total && canContinue && !tracked.stopped;
    return goOn ? { next: "step", index: index + 1, previous: record } : this.deliver(tracked);
  }

  /** A chain step could not start: the chain ends there, with the refusal in its place. */
  stepRefused(id: string, index: number, message: string): EndedWorkflow | undefined {
    const tracked = this.workflows.get(id);
    if (!tracked) return undefined;
    tracked.ended.set(index, { refused: { agent: tracked.start.agents[index] ?? "no agent", message } });
    const outcome = this.deliver(tracked);
    return outcome.workflow;
  }

  private deliver(tracked: Tracked): { next: "deliver"; workflow: EndedWorkflow } {
    this.workflows.delete(tracked.start.id);
    const indexes = [...tracked.ended.keys()].sort((a, b) => a - b);
    const parts = indexes.map((index) => tracked.ended.get(index) as EndedPart);
    const last = indexes.at(-1) ?? -1;
    const notRun = tracked.start.kind === "chain" ? tracked.start.agents.slice(last + 1) : [];
    return {
      next: "deliver",
      workflow: {
        id: tracked.start.id,
        kind: tracked.start.kind,
        parentSessionId: tracked.start.parentSessionId,
        parts,
        notRun,
      },
    };
  }
}

/*
 * What a workflow's result card shows, made from its ended parts: the title with the counts, each part's
 * status, time and usage, the usage of all parts together and the time from the first dispatch to the last
 * end. Pure.
 */
function cardPart(part: EndedPart, index: number): WorkflowCardPart {
  if ("refused" in part) return { index: index + 1, agent: part.refused.agent, status: "refused" };
  const record = part.record;
  return {
    index: index + 1,
    agent: record.agent,
    status: record.status,
    taskId: record.taskId,
    durationMs: record.durationMs,
    usage: record.usage,
  };
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
