/**
 * Background (TUI) subagent tasks: the registry plus what happens around it. Every ended task is recorded on
 * disk first (record + outbox entry), then its `[subagent-result]` envelope is sent with steer delivery; a
 * record counts as delivered only once the message is seen entering the conversation (the delivery tracker),
 * so a result is never lost (an unacknowledged one is sent again at the next safe moment, and undelivered ones
 * when their session starts) and never reaches the model twice.
 *
 * Disk is a safety net, never a precondition: when a record or outbox write fails (read-only or full disk, a
 * file where a folder should be), the result is still delivered from memory and the person is told once.
 */
import { settleChecksFor } from "../run/settle-checks.ts";
import { DeliveryTracker, resultRun, type SendRoute } from "../delivery/delivery-tracker.ts";
import { buildEnvelope, type InFlightTask } from "../delivery/envelope.ts";
import { addToOutbox, pendingFor, removeFromOutbox, SaveFailureReporter } from "../delivery/outbox.ts";
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.ts";
import { ownIdentity } from "../shared/proc-identity.ts";
import { onProcessExit } from "../run/processes.ts";
import { startRun as startChildRun } from "../run/runner.ts";
import { readStopGraceMs } from "../run/stop-sequence.ts";
import type { RunOutcome } from "../run/event-reducer.ts";
import { MAX_TIMER_MS, type RunSettings } from "../shared/run-settings.ts";
import type { PreparedRun } from "../tool/prepare-dispatch.ts";
import { nestedHopsBelow, type DialogRoute } from "../dialogs/child-dialogs.ts";
import type { QuestionBoard } from "../dialogs/question-board.ts";
import {
  detailsFromRecord,
  readMaxOutputChars,
  saveLongOutput,
  readRecord,
  writeRecord,
  type SubagentResultDetails,
} from "../records/record-store.ts";
import {
  recordFromOutcome,
  type CancelledBy,
  type TaskRecord,
  type WorkflowMembership,
  type WorkflowRecord,
} from "../records/record.ts";
import { TaskRegistry, type EnqueueResult, type FinishedTask, type TaskSnapshot } from "./registry.ts";
import {
  WorkflowTracker,
  workflowCardDetails,
  type EndedWorkflow,
  type WorkflowStart,
} from "../workflows/workflow-tracker.ts";
import {
  buildWorkflowEnvelope,
  readWorkflowRecord,
  workflowRecordPath,
  writeWorkflowRecord,
} from "../workflows/background-workflow.ts";
import {
  deliveredEvent,
  endedEvent,
  LIFECYCLE_CHANNELS,
  queuedEvent,
  startedEvent,
  type LifecycleSink,
} from "../delivery/lifecycle-events.ts";

export const RESULT_CUSTOM_TYPE = RESULT_CUSTOM_TYPE_NAME;

export interface ResultMessage {
  customType: typeof RESULT_CUSTOM_TYPE;
  content: string;
  display: true;
  details: SubagentResultDetails | WorkflowRecord["details"];
}

/** A chain's next step, made ready by the dispatch path: the run to start, or why it cannot start. */
export type ChainStep = { prepared: PreparedRun; askPerson: boolean } | { refused: string };

/** Makes step `index` (0-based) of a chain ready, its `{previous}` filled from the record of the step before. */
export type ChainContinuation = (index: number, previous: TaskRecord) => ChainStep;

/** What is delivered as one `[subagent-result]` message: a single task's record, or a workflow's. */
type DeliveryUnit = { kind: "task"; record: TaskRecord } | { kind: "workflow"; record: WorkflowRecord };

function unitId(unit: DeliveryUnit): string {
  return unit.kind === "task" ? unit.record.taskId : unit.record.workflowId;
}

/** Which run of its task a unit holds (a resume is another run under the same taskId); see resultRun. */
function unitRun(unit: DeliveryUnit): string {
  return unit.kind === "task" ? resultRun(unit.record) : "";
}

export interface BackgroundTasksOptions {
  agentDir: string;
  settings: RunSettings;
  /**
   * How much of the output the main agent gets (default:
   * PI_SUBAGENT_MAX_OUTPUT_CHARS, see output-limit.ts).
   */
  maxOutputChars?: number;
  /**
   * pi.sendMessage with steer delivery; throws when pi's context is
   * stale.
   */
  send: (message: ResultMessage) => void;
  /**
   * True while the main agent is idle (a message then starts a run of its own
   * instead of being queued).
   */
  isIdle?: () => boolean;
  /**
   * Tells the person something (a write that failed); called at most once
   * per place that failed.
   */
  notify?: (text: string) => void;
  startRun?: typeof startChildRun;
  /** The person's questions: where a task's dialogs go (absent: nobody, and each one is cancelled). */
  questions?: QuestionBoard;
  now?: () => number;
  /** Where the lifecycle events go (pi's event bus); none when absent. */
  events?: LifecycleSink;
  /**
   * A delegation of the main agent's ended and its result was sent: a task on its own (`rootId` its task id) or a
   * whole batch or chain (the workflow's id). Not for a part of a workflow, nor while pi shuts down.
   */
  onDelegationEnded?: (rootId: string) => void;
}

export interface Counts {
  running: number;
  queued: number;
  /** Tasks of this extension instance that ended (delivered or not). */
  done: number;
}

export class BackgroundTasks {
  private readonly options: BackgroundTasksOptions;
  readonly registry: TaskRegistry;
  private readonly listeners: Set<() => void> = new Set();
  private readonly recordListeners: Set<(record: TaskRecord) => void> = new Set();
  private readonly now: () => number;
  private shuttingDown = false;
  private doneCount = 0;
  private readonly removeExitHook: () => void;
  readonly delivery = new DeliveryTracker();
  /** Results not yet acknowledged, kept in memory so delivery never depends on the disk. */
  private readonly undelivered: Map<string, DeliveryUnit> = new Map();
  /** The batches and chains with a part still to end. */
  readonly workflows = new WorkflowTracker();
  private readonly chainSteps: Map<string, ChainContinuation> = new Map();
  private readonly saveFailures: SaveFailureReporter;

  constructor(options: BackgroundTasksOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.saveFailures = new SaveFailureReporter(options.agentDir, (text) => options.notify?.(text));
    this.registry = new TaskRegistry({
      maxConcurrent: options.settings.maxConcurrent,
      startRun: options.startRun ?? startChildRun,
      onFinished: (finished) => this.onFinished(finished),
      onFinishError: (taskId, error) =>
        options.notify?.(
          `subagent: recording task ${taskId} failed (${error instanceof Error ? error.message : String(error)}).`,
        ),
      onChange: () => this.emitChange(),
      now: this.now,
    });
    this.removeExitHook = onProcessExit(() => this.recordAllForExit());
    options.questions?.onChange(() => this.emitChange());
  }

  /** The progress widget's line for a question waiting for the person (`? explore 01a2b3c4 asks: …`). */
  waitingQuestion(): string | undefined {
    return this.options.questions?.waitingLine();
  }

  /** A task's question waiting for the person, in one line (for `/subagent-watch`). */
  questionOf(taskId: string): string | undefined {
    return this.options.questions?.questionOf(taskId);
  }

  /** Hears of every ended task's record (the session ledger adds its usage). */
  onRecord(listener: (record: TaskRecord) => void): () => void {
    this.recordListeners.add(listener);
    return () => this.recordListeners.delete(listener);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emitChange(): void {
    for (const listener of this.listeners) listener();
  }

  counts(): Counts {
    const running = this.registry.runningCount();
    return { running, queued: this.registry.size - running, done: this.doneCount };
  }

  snapshot(): TaskSnapshot[] {
    const tasks = this.registry.snapshot();
    if (!this.options.questions?.queue.first()) return tasks;
    return tasks.map((task) => {
      const question = this.questionOf(task.taskId);
      return question ? { ...task, question } : task;
    });
  }

  /**
   * Announces a batch or chain before its first part is dispatched (so a part that ends at once is counted).
   * A chain's later steps are made ready by `continueChain` when the step before succeeded.
   */
  beginWorkflow(start: WorkflowStart, continueChain?: ChainContinuation): void {
    this.workflows.begin(start);
    if (continueChain) this.chainSteps.set(start.id, continueChain);
  }

  /**
   * Cancels every part of a workflow still in flight (a chain then starts no further step); returns how many
   * parts were cancelled, or undefined when no workflow of this id is in flight.
   */
  cancelWorkflow(workflowId: string, by: CancelledBy, reason?: string): number | undefined {
    if (!this.workflows.has(workflowId)) return undefined;
    this.workflows.stop(workflowId);
    let cancelled = 0;
    for (const taskId of this.workflows.partsInFlight(workflowId))
      if (this.registry.cancel(taskId, by, reason)) cancelled += 1;
    return cancelled;
  }

  /** Starts (or queues) a prepared run in the background; `workflow` when it is a part of a batch or chain. */
  dispatch(
    prepared: PreparedRun,
    parentSessionId: string | undefined,
    askPerson = true,
    workflow?: WorkflowMembership,
  ): EnqueueResult {
    const dialogs = (): DialogRoute | undefined =>
      askPerson
        ? this.options.questions?.routeFor(
            { taskId: prepared.taskId, agent: prepared.agent.name },
            // Hops in its questions' titles are read only as deep as the tree lets the child's own children go.
            { nestedHops: prepared.origin ? nestedHopsBelow(prepared.origin.depth, prepared.origin.maxDepth) : 0 },
          )
        : { kind: "nobody", reason: "$askPerson is false" };
    const identity = {
      taskId: prepared.taskId,
      agent: prepared.agent.name,
      task: prepared.task,
      mode: "async" as const,
      ...(workflow ? { workflow } : {}),
    };
    const onSpawned = (pid: number) => {
      prepared.childStarted?.(pid);
      this.options.events?.(LIFECYCLE_CHANNELS.started, startedEvent(identity, pid, this.now()));
    };
    // Queued is told before the registry may start the task, so a listener hears queued, then started.
    const waiting = this.registry.runningCount() >= this.options.settings.maxConcurrent;
    this.options.events?.(LIFECYCLE_CHANNELS.queued, queuedEvent(identity, waiting, this.now()));
    if (workflow) this.workflows.partStarted(workflow.id, workflow.index - 1, prepared.taskId);
    return this.registry.enqueue({
      workflow,
      taskId: prepared.taskId,
      agent: prepared.agent.name,
      task: prepared.task,
      parentSessionId,
      sessionFile: prepared.sessionFile,
      cwd: prepared.cwd,
      origin: prepared.origin,
      resolved: prepared.resolved,
      release: prepared.release,
      budget: prepared.budget?.limits,
      budgetNotes: prepared.budget?.capped,
      worktree: prepared.worktree,
      spec: () => ({
        command: prepared.command,
        cwd: prepared.cwd,
        activityTimeoutMs: this.options.settings.activityTimeoutMs,
        hardTimeoutMs: this.options.settings.hardTimeoutMs,
        graceMs: this.options.settings.killGraceMs,
        onSpawned,
        budget: prepared.budget?.limits,
        loopGuard: prepared.loopGuard,
        dialogs: dialogs(),
        now: this.now,
        settle: settleChecksFor(prepared),
        warm: prepared.warm,
      }),
    });
  }

  cancel(taskId: string, by: CancelledBy, reason?: string): boolean {
    return this.registry.cancel(taskId, by, reason);
  }

  cancelAll(by: CancelledBy): number {
    return this.registry.cancelAll(by);
  }

  /** Records (and, unless shutting down, delivers) a task that ended. Never throws: it runs from a promise. */
  private onFinished(finished: FinishedTask): void {
    this.doneCount += 1;
    const record = this.recordOf(finished);
    if (finished.cleanupError !== undefined) this.saveFailures.cleanup(record, finished.cleanupError);
    saveLongOutput(this.options.agentDir, record, this.options.maxOutputChars ?? readMaxOutputChars());
    record.envelope = buildEnvelope(record, finished.inFlight.map(toInFlight), this.options.settings);
    // A workflow's part is delivered inside the workflow's one envelope, not on its own.
    const inWorkflow = record.workflow !== undefined && this.workflows.has(record.workflow.id);
    if (!inWorkflow) this.undelivered.set(record.taskId, { kind: "task", record });
    this.saveRecord(record);
    for (const listener of this.recordListeners) {
      try {
        listener(record);
      } catch {
        // A listener's failure (the ledger's session write) must not cost the result its delivery.
      }
    }
    this.options.events?.(LIFECYCLE_CHANNELS.ended, endedEvent(record, this.now()));
    try {
      addToOutbox(this.options.agentDir, {
        taskId: record.taskId,
        parentSessionId: record.parentSessionId,
        finishedAt: record.finishedAt,
        owner: ownIdentity(),
      });
    } catch (error) {
      this.saveFailures.outbox(record, error);
    }
    if (inWorkflow) this.workflowPartEnded(record, finished.inFlight);
    else if (!this.shuttingDown) {
      this.send({ kind: "task", record });
      this.delegationEnded(record.taskId);
    }
  }

  private delegationEnded(rootId: string): void {
    try {
      this.options.onDelegationEnded?.(rootId);
    } catch {
      // What listens (the trace's export) must never cost a result or the tasks' bookkeeping.
    }
  }

  /**
   * A workflow's part ended (its record and outbox entry are written): wait for the others, start the chain's
   * next step, or, when the workflow is over, record and send its one envelope.
   */
  private workflowPartEnded(record: TaskRecord, inFlight: readonly TaskSnapshot[]): void {
    const outcome = this.workflows.partEnded(record, !this.shuttingDown);
    if (outcome.next === "wait") return;
    if (outcome.next === "deliver") {
      this.workflowEnded(outcome.workflow, inFlight);
      return;
    }
    const id = (record.workflow as WorkflowMembership).id;
    let step: ChainStep;
    try {
      const continueChain = this.chainSteps.get(id);
      step = continueChain
        ? continueChain(outcome.index, outcome.previous)
        : { refused: "the chain's next step is not known to this pi" };
    } catch (error) {
      step = { refused: error instanceof Error ? error.message : String(error) };
    }
    if ("refused" in step) {
      const ended = this.workflows.stepRefused(id, outcome.index, step.refused);
      if (ended) this.workflowEnded(ended, inFlight);
      return;
    }
    const membership: WorkflowMembership = { ...(record.workflow as WorkflowMembership), index: outcome.index + 1 };
    // A step that cannot start ends as failed through onFinished, which ends the chain.
    this.dispatch(step.prepared, record.parentSessionId, step.askPerson, membership);
  }

  /** Records a workflow's combined envelope, puts it in the outbox in place of its parts, and sends it. */
  private workflowEnded(workflow: EndedWorkflow, inFlight: readonly TaskSnapshot[]): void {
    this.chainSteps.delete(workflow.id);
    const others = inFlight.filter((task) => task.workflow?.id !== workflow.id).map(toInFlight);
    const partIds = workflow.parts.flatMap((part) => ("record" in part ? [part.record.taskId] : []));
    const record: WorkflowRecord = {
      version: 1,
      workflowId: workflow.id,
      kind: workflow.kind,
      parentSessionId: workflow.parentSessionId,
      partIds,
      finishedAt: this.now(),
      envelope: buildWorkflowEnvelope(workflow, others, this.options.settings),
      details: workflowCardDetails(workflow),
      delivered: false,
    };
    const unit: DeliveryUnit = { kind: "workflow", record };
    this.undelivered.set(workflow.id, unit);
    this.saveUnit(unit);
    try {
      addToOutbox(this.options.agentDir, {
        taskId: workflow.id,
        parentSessionId: record.parentSessionId,
        finishedAt: record.finishedAt,
        owner: ownIdentity(),
      });
      // The workflow's entry stands for its parts from now on; a crash before this line delivers them one by one.
      for (const taskId of partIds) removeFromOutbox(this.options.agentDir, taskId);
    } catch (error) {
      this.saveFailures.outbox({ agent: workflow.kind, taskId: workflow.id }, error);
    }
    if (!this.shuttingDown) {
      this.send(unit);
      this.delegationEnded(workflow.id);
    }
  }

  /** Writes a record; a failure is reported (once per place) and otherwise ignored: memory still has it. */
  private saveRecord(record: TaskRecord): void {
    try {
      writeRecord(this.options.agentDir, record);
    } catch (error) {
      this.saveFailures.record(record, error);
    }
  }

  private saveUnit(unit: DeliveryUnit): void {
    if (unit.kind === "task") {
      this.saveRecord(unit.record);
      return;
    }
    try {
      writeWorkflowRecord(this.options.agentDir, unit.record);
    } catch (error) {
      this.saveFailures.record(
        { agent: unit.record.kind, taskId: unit.record.workflowId },
        error,
        workflowRecordPath(this.options.agentDir, unit.record.workflowId),
      );
    }
  }

  private recordOf(finished: FinishedTask): TaskRecord {
    const launch = finished.launch;
    const context = {
      taskId: launch.taskId,
      agent: launch.agent,
      task: launch.task,
      mode: "async" as const,
      sessionFile: launch.sessionFile,
      cwd: launch.cwd,
      dispatchedAt: finished.dispatchedAt,
      parentSessionId: launch.parentSessionId,
      cancelledBy: finished.cancelledBy,
      cancelReason: finished.cancelReason,
      messages: finished.messages,
      budget: launch.budget,
      budgetNotes: launch.budgetNotes,
      origin: launch.origin,
      resolved: launch.resolved,
      worktree: launch.worktree,
      workflow: launch.workflow,
    };
    return recordFromOutcome(context, finished.outcome ?? this.neverStarted(finished));
  }

  /** A task cancelled while queued never ran: its duration counts from dispatch. */
  private neverStarted(finished: FinishedTask): RunOutcome {
    const at = this.now();
    return {
      status: "cancelled",
      exitCode: null,
      signal: null,
      stopReason: finished.cancelledBy === "none" ? "killed_on_shutdown" : "aborted",
      output: "",
      usage: { turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
      startedAt: finished.dispatchedAt,
      finishedAt: at,
      durationMs: at - finished.dispatchedAt,
      stderrTail: "",
    };
  }

  private send(unit: DeliveryUnit): boolean {
    const record = unit.record;
    if (!record.envelope) return false;
    let route: SendRoute = "queue";
    try {
      route = this.options.isIdle?.() ? "prompt" : "queue";
    } catch {
      // a stale context: the send below fails the same way
    }
    try {
      const details = unit.kind === "task" ? detailsFromRecord(unit.record) : unit.record.details;
      this.options.send({ customType: RESULT_CUSTOM_TYPE, content: record.envelope, display: true, details });
    } catch (error) {
      record.deliveryError = error instanceof Error ? error.message : String(error);
      this.saveUnit(unit);
      return false;
    }
    this.delivery.sent(unitId(unit), route, unitRun(unit));
    return true;
  }

  /** Outbox entries this process may deliver plus results only memory holds (their outbox write failed). */
  private pendingIds(parentSessionId: string): string[] {
    const ids = new Set(pendingFor(this.options.agentDir, parentSessionId));
    for (const [id, unit] of this.undelivered) if (unit.record.parentSessionId === parentSessionId) ids.add(id);
    const finishedAt = (id: string) => this.undelivered.get(id)?.record.finishedAt ?? 0;
    return [...ids].sort((a, b) => finishedAt(a) - finishedAt(b) || (a < b ? -1 : 1));
  }

  /** The record of a result not yet delivered: from memory, else from disk (a task's, else a workflow's). */
  private undeliveredUnit(id: string): DeliveryUnit | undefined {
    const kept = this.undelivered.get(id);
    if (kept) return kept;
    const record = readRecord(this.options.agentDir, id);
    if (record) return { kind: "task", record };
    const workflow = readWorkflowRecord(this.options.agentDir, id);
    return workflow ? { kind: "workflow", record: workflow } : undefined;
  }

  /**
   * A part's outbox entry whose workflow will deliver it: the workflow is still in flight here, or its
   * combined record exists (a crash came between writing it and removing the parts' entries).
   */
  private deliveredByWorkflow(unit: DeliveryUnit): boolean {
    if (unit.kind !== "task" || !unit.record.workflow) return false;
    const id = unit.record.workflow.id;
    return (
      this.workflows.has(id) || this.undelivered.has(id) || readWorkflowRecord(this.options.agentDir, id) !== undefined
    );
  }

  /**
   * Called when a `subagent-result` message (of `run`, see resultRun) entered the conversation. The first time,
   * that run's result is now delivered; a later copy of it (pi held one that was also sent again) is a duplicate,
   * which the caller keeps from the model. A resumed task's new run is a delivery of its own. Without `run`
   * (or ""): the task's latest run.
   */
  confirmDelivered(taskId: string, run?: string): "first" | "duplicate" {
    const unit = this.undeliveredUnit(taskId);
    const latest = unit ? unitRun(unit) : "";
    const ack = this.delivery.acknowledge(taskId, run || latest);
    if (ack === "duplicate") return ack;
    // An earlier run's copy says nothing of the task's newer result waiting here.
    if (unit && run && run !== latest) return ack;
    this.undelivered.delete(taskId);
    if (unit?.kind === "task") this.markTaskDelivered(unit.record);
    if (unit?.kind === "workflow" && !unit.record.delivered) {
      const at = this.now();
      unit.record.delivered = true;
      unit.record.deliveredAt = at;
      unit.record.deliveryError = undefined;
      this.saveUnit(unit);
      // Each part reached the main agent inside the workflow's envelope.
      for (const partId of unit.record.partIds) {
        const part = readRecord(this.options.agentDir, partId);
        if (part) this.markTaskDelivered(part, at);
      }
    }
    try {
      removeFromOutbox(this.options.agentDir, taskId);
    } catch (error) {
      if (unit)
        this.saveFailures.outbox(unit.kind === "task" ? unit.record : { agent: unit.record.kind, taskId }, error);
    }
    return ack;
  }

  private markTaskDelivered(record: TaskRecord, at = this.now()): void {
    if (record.delivered) return;
    record.delivered = true;
    record.deliveredAt = at;
    record.deliveryError = undefined;
    this.saveRecord(record);
    this.options.events?.(LIFECYCLE_CHANNELS.delivered, deliveredEvent(record, at));
  }

  /**
   * A safe moment: a run of the main agent ended (`abnormal` when its model call failed or was aborted) and
   * pi is idle. Sends again what pi dropped (see DeliveryTracker), then, after a normal end, anything of this
   * session waiting in the outbox that this process may deliver. Returns how many results were sent.
   */
  afterRun(parentSessionId: string | undefined, abnormal: boolean): number {
    if (this.shuttingDown) return 0;
    let sent = 0;
    for (const taskId of this.delivery.runEnded(abnormal)) {
      const unit = this.undeliveredUnit(taskId);
      if (!unit || unit.record.delivered) {
        this.delivery.drop(taskId);
        continue;
      }
      if (this.send(unit)) sent += 1;
    }
    if (!abnormal && parentSessionId) sent += this.redeliver(parentSessionId);
    return sent;
  }

  /**
   * Sends, oldest first, the results of `parentSessionId` that were recorded but never delivered and that this
   * process may deliver (its own, or those of a pi process that died). Results already handed to pi and not
   * yet seen are left to the delivery tracker.
   */
  redeliver(parentSessionId: string): number {
    let sent = 0;
    for (const taskId of this.pendingIds(parentSessionId)) {
      if (this.registry.has(taskId) || this.delivery.isAwaiting(taskId)) continue;
      const unit = this.undeliveredUnit(taskId);
      if (unit && this.deliveredByWorkflow(unit)) {
        if (!this.workflows.has((unit.record as TaskRecord).workflow?.id ?? ""))
          removeQuietly(this.options.agentDir, taskId);
        continue;
      }
      if (!unit || unit.record.delivered || this.delivery.isAcknowledged(taskId, unitRun(unit))) {
        try {
          removeFromOutbox(this.options.agentDir, taskId);
        } catch {
          // harmless: the record says delivered, and the next start tries again
        }
        continue;
      }
      if (this.send(unit)) sent += 1;
    }
    return sent;
  }

  /**
   * `session_shutdown`: every running child tree is stopped and every queued task dropped, all recorded as
   * cancelled by shutdown. Results are not sent to a session that is going away: they stay in the outbox and
   * are delivered when that session starts again.
   */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    const handles = this.registry.runningHandles();
    this.registry.cancelAll("none");
    // A stop may take the stop grace (the child ends its turn) plus the kill grace; never longer, and never
    // above what a timer can wait (a longer delay would fire at once).
    const grace = Math.min(readStopGraceMs() + this.options.settings.killGraceMs + 1000, MAX_TIMER_MS);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(handles.map((handle) => handle.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, grace);
        timer.unref();
      }) as Promise<void>,
    ]);
    clearTimeout(timer);
    // Anything still not ended is recorded now; the exit hook would otherwise do it.
    this.recordAllForExit();
    this.removeExitHook();
  }

  /** Synchronous: records every task still in flight as cancelled by shutdown (pi is exiting). */
  private recordAllForExit(): void {
    this.shuttingDown = true;
    for (const finished of this.registry.drainForExit()) this.onFinished(finished);
  }
}

/** Removes an outbox entry that is no longer needed; a failure is harmless (the next start tries again). */
function removeQuietly(agentDir: string, taskId: string): void {
  try {
    removeFromOutbox(agentDir, taskId);
  } catch {
    // harmless, as said
  }
}

function toInFlight(task: TaskSnapshot): InFlightTask {
  return { taskId: task.taskId, agent: task.agent, task: task.task };
}
