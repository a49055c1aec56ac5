/**
 * The lifecycle events other extensions can hear on pi's shared event bus (`pi.events`): a task is queued,
 * starts, asks the person, ends and is delivered. Channel names and payloads are a stable interface (docs/events.md, "Events for other
 * extensions"): fields may be added, none is renamed or removed. Each carries its task's trace and span ids, kept
 * here so the dispatch path loads nothing more for them. Pure: the payloads are built here, the caller emits them
 * through a sink.
 */
import type { UsageTotals } from "../shared/text.ts";
import type { RunStatus } from "../run/event-reducer.ts";
import type { CancelledBy, DispatchMode, TaskRecord, WorkflowMembership } from "../records/record.ts";

/*
 * The ids a task has in a trace (OpenTelemetry's: a 32-hex trace id, 16-hex span ids), derived from ids we
 * already keep, so the events and `/subagent-trace --json` (src/trace/trace-spans.ts) name the same spans with
 * nothing stored, and no module loaded, for them on the dispatch path. A task id is a UUID v7: its last 16 hex
 * digits are random, which is what a span id needs; the delegation a trace covers (a task, batch or chain) gives
 * the trace id, its 32 hex digits.
 */
const hexOf = (uuid: string): string => uuid.replace(/-/g, "").toLowerCase();

/** The trace id of the delegation whose id (a task's, a batch's or a chain's) is `rootId`. */
export function traceIdOf(rootId: string): string {
  return hexOf(rootId).padStart(32, "0").slice(-32);
}

/** A task's span id: the random end of its id. */
export function taskSpanId(taskId: string): string {
  return hexOf(taskId).padStart(16, "0").slice(-16);
}

/** The span id of a batch or chain (its own span, above its parts): its id's random end, first bit flipped. */
export function workflowSpanId(workflowId: string): string {
  const hex = taskSpanId(workflowId);
  return `${(Number.parseInt(hex[0]!, 16) ^ 8).toString(16)}${hex.slice(1)}`;
}

export const LIFECYCLE_CHANNELS = {
  queued: "subagent:queued",
  started: "subagent:started",
  asking: "subagent:asking",
  ended: "subagent:ended",
  delivered: "subagent:delivered",
} as const;

/** Every payload says who sent it, so a listener can tell ours from another extension's `subagent:` events. */
const EVENT_SOURCE = "pi-subagent-dispatch";

/** What every payload carries. `at` is the moment of the event, in milliseconds since the epoch. */
interface TaskEventBase {
  source: typeof EVENT_SOURCE;
  taskId: string;
  agent: string;
  /** The task as the main agent wrote it. */
  task: string;
  /** `sync`: a blocking call (print, JSON, RPC mode); `async`: a background task (the TUI). */
  mode: DispatchMode;
  at: number;
  /**
   * The ids `/subagent-trace --json` gives this task's span (traceIdOf, taskSpanId, workflowSpanId above): the trace is the batch's or
   * chain's when the task is a part of one (its span then the parent), else the task's own.
   */
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

export interface TaskQueuedEvent extends TaskEventBase {
  /** True when the task waits for a free slot (the concurrency limit); false when it starts at once. */
  waiting: boolean;
}

export interface TaskStartedEvent extends TaskEventBase {
  /** The child pi's process id. */
  pid: number;
}

/**
 * A background task's child asks the person something (a dialog it forwards, see "Questions from subagents"). It
 * carries what the board knows of the task, not its task text and mode (always a background task, `async`).
 */
export interface TaskAskingEvent {
  source: typeof EVENT_SOURCE;
  taskId: string;
  agent: string;
  /** Who asks, outermost first: more than one for a nested subagent's question (`reviewer 01a2 › explore 01a3`). */
  askers: Array<{ agent: string; taskId: string }>;
  /** The kind of dialog: `select`, `confirm`, `input` or `editor`. */
  kind: string;
  /** The dialog's title, as the child wrote it. */
  title: string;
  at: number;
}

export interface TaskEndedEvent extends TaskEventBase {
  /** The record's status: `succeeded`, `failed`, `timed out`, `cancelled` or `stopped`. */
  status: RunStatus;
  stopReason?: string;
  cancelledBy?: CancelledBy;
  durationMs: number;
  usage: UsageTotals;
  model?: string;
  sessionFile: string;
}

export interface TaskDeliveredEvent extends TaskEventBase {
  status: RunStatus;
}

interface LifecycleEventMap {
  "subagent:queued": TaskQueuedEvent;
  "subagent:started": TaskStartedEvent;
  "subagent:asking": TaskAskingEvent;
  "subagent:ended": TaskEndedEvent;
  "subagent:delivered": TaskDeliveredEvent;
}

type LifecycleChannel = keyof LifecycleEventMap;

/** Where events go (`pi.events.emit` behind a guard); it must never throw into the caller. */
export type LifecycleSink = <C extends LifecycleChannel>(channel: C, payload: LifecycleEventMap[C]) => void;

export interface TaskIdentity {
  taskId: string;
  agent: string;
  task: string;
  mode: DispatchMode;
  /** The batch or chain it is a part of (background or blocking). */
  workflow?: Pick<WorkflowMembership, "id">;
}

function base(task: TaskIdentity, at: number): TaskEventBase {
  const event: TaskEventBase = {
    source: EVENT_SOURCE,
    taskId: task.taskId,
    agent: task.agent,
    task: task.task,
    mode: task.mode,
    at,
    traceId: traceIdOf(task.workflow?.id ?? task.taskId),
    spanId: taskSpanId(task.taskId),
  };
  if (task.workflow) event.parentSpanId = workflowSpanId(task.workflow.id);
  return event;
}

export function queuedEvent(task: TaskIdentity, waiting: boolean, at: number): TaskQueuedEvent {
  return { ...base(task, at), waiting };
}

export function startedEvent(task: TaskIdentity, pid: number, at: number): TaskStartedEvent {
  return { ...base(task, at), pid };
}

export function askingEvent(
  question: {
    taskId: string;
    path: ReadonlyArray<{ agent: string; taskId: string }>;
    dialog: { method: string; title: string };
  },
  at: number,
): TaskAskingEvent {
  const asker = question.path[question.path.length - 1];
  return {
    source: EVENT_SOURCE,
    taskId: question.taskId,
    agent: question.path[0]?.agent ?? asker?.agent ?? "",
    askers: question.path.map((step) => ({ agent: step.agent, taskId: step.taskId })),
    kind: question.dialog.method,
    title: question.dialog.title,
    at,
  };
}

export function endedEvent(record: TaskRecord, at: number): TaskEndedEvent {
  const event: TaskEndedEvent = {
    ...base(record, at),
    status: record.status,
    durationMs: record.durationMs,
    usage: { ...record.usage },
    sessionFile: record.sessionFile,
  };
  if (record.stopReason !== undefined) event.stopReason = record.stopReason;
  if (record.cancelledBy !== undefined) event.cancelledBy = record.cancelledBy;
  if (record.model !== undefined) event.model = record.model;
  return event;
}

export function deliveredEvent(record: TaskRecord, at: number): TaskDeliveredEvent {
  return { ...base(record, at), status: record.status };
}

/** A sink over pi's event bus: a stale or failing bus (after a reload, at exit) costs the event, nothing else. */
export function eventBusSink(bus: { emit(channel: string, data: unknown): void } | undefined): LifecycleSink {
  return (channel, payload) => {
    try {
      bus?.emit(channel, payload);
    } catch {
      // pi 1.x throws from a stale extension's bus; an event is a courtesy and never costs a result.
    }
  };
}
