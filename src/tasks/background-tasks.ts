/**
 * Background (TUI) subagent tasks: the registry plus what happens around it. Every ended task is recorded on
 * disk first (record + outbox entry), then its `[subagent-result]` envelope is sent with steer delivery; a
 * record counts as delivered only once the message is seen entering the conversation, so a result is never
 * lost (undelivered ones are sent again when their session starts) and never sent twice.
 */
import { buildEnvelope, type InFlightTask } from "../delivery/envelope.ts";
import { addToOutbox, pendingFor, removeFromOutbox } from "../delivery/outbox.ts";
import { onProcessExit } from "../run/child-guard.ts";
import { startRun as startChildRun } from "../run/runner.ts";
import { readStopGraceMs } from "../run/stop-sequence.ts";
import type { RunOutcome } from "../run/types.ts";
import type { RunSettings } from "../shared/run-settings.ts";
import type { PreparedRun } from "../tool/prepare-dispatch.ts";
import { detailsFromRecord, type SubagentResultDetails } from "./details.ts";
import { recordFromOutcome } from "./record-from-outcome.ts";
import { readRecord, writeRecord } from "./record-store.ts";
import { TaskRegistry, type EnqueueResult, type FinishedTask, type TaskSnapshot } from "./registry.ts";
import type { CancelledBy, TaskRecord } from "./types.ts";

export const RESULT_CUSTOM_TYPE = "subagent-result";

export interface ResultMessage {
  customType: typeof RESULT_CUSTOM_TYPE;
  content: string;
  display: true;
  details: SubagentResultDetails;
}

export interface BackgroundTasksOptions {
  agentDir: string;
  settings: RunSettings;
  /** pi.sendMessage with steer delivery; throws when pi's context is stale. */
  send: (message: ResultMessage) => void;
  startRun?: typeof startChildRun;
  now?: () => number;
}

export interface Counts {
  running: number;
  queued: number;
  /** Tasks of this extension instance that ended (delivered or not). */
  done: number;
}

export class BackgroundTasks {
  readonly registry: TaskRegistry;
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  private shuttingDown = false;
  private doneCount = 0;
  private readonly removeExitHook: () => void;

  constructor(private readonly options: BackgroundTasksOptions) {
    this.now = options.now ?? Date.now;
    this.registry = new TaskRegistry({
      maxConcurrent: options.settings.maxConcurrent,
      startRun: options.startRun ?? startChildRun,
      onFinished: (finished) => this.onFinished(finished),
      onChange: () => this.emitChange(),
      now: this.now,
    });
    this.removeExitHook = onProcessExit(() => this.recordAllForExit());
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
    return this.registry.snapshot();
  }

  /** Starts (or queues) a prepared run in the background. */
  dispatch(prepared: PreparedRun, parentSessionId: string | undefined): EnqueueResult {
    return this.registry.enqueue({
      taskId: prepared.taskId,
      agent: prepared.agent.name,
      task: prepared.task,
      parentSessionId,
      sessionFile: prepared.sessionFile,
      cwd: prepared.cwd,
      release: prepared.release,
      spec: () => ({
        command: prepared.command,
        cwd: prepared.cwd,
        activityTimeoutMs: this.options.settings.activityTimeoutMs,
        hardTimeoutMs: this.options.settings.hardTimeoutMs,
        graceMs: this.options.settings.killGraceMs,
        now: this.now,
      }),
    });
  }

  cancel(taskId: string, by: CancelledBy, reason?: string): boolean {
    return this.registry.cancel(taskId, by, reason);
  }

  cancelAll(by: CancelledBy): number {
    return this.registry.cancelAll(by);
  }

  /** Records (and, unless shutting down, delivers) a task that ended. */
  private onFinished(finished: FinishedTask): void {
    this.doneCount += 1;
    const record = this.recordOf(finished);
    record.envelope = buildEnvelope(record, finished.inFlight.map(toInFlight), this.options.settings);
    writeRecord(this.options.agentDir, record);
    addToOutbox(this.options.agentDir, { taskId: record.taskId, parentSessionId: record.parentSessionId, finishedAt: record.finishedAt });
    if (!this.shuttingDown) this.send(record);
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

  private send(record: TaskRecord): boolean {
    if (!record.envelope) return false;
    try {
      this.options.send({ customType: RESULT_CUSTOM_TYPE, content: record.envelope, display: true, details: detailsFromRecord(record) });
      return true;
    } catch (error) {
      record.deliveryError = error instanceof Error ? error.message : String(error);
      writeRecord(this.options.agentDir, record);
      return false;
    }
  }

  /** Called when a `subagent-result` message entered the conversation: the result is now delivered. */
  confirmDelivered(taskId: string): void {
    const record = readRecord(this.options.agentDir, taskId);
    if (record && !record.delivered) {
      record.delivered = true;
      record.deliveredAt = this.now();
      record.deliveryError = undefined;
      writeRecord(this.options.agentDir, record);
    }
    removeFromOutbox(this.options.agentDir, taskId);
  }

  /** Sends, oldest first, the results of `parentSessionId` that were recorded but never delivered. */
  redeliver(parentSessionId: string): number {
    let sent = 0;
    for (const taskId of pendingFor(this.options.agentDir, parentSessionId)) {
      if (this.registry.has(taskId)) continue;
      const record = readRecord(this.options.agentDir, taskId);
      if (!record) {
        removeFromOutbox(this.options.agentDir, taskId);
        continue;
      }
      if (record.delivered) {
        removeFromOutbox(this.options.agentDir, taskId);
        continue;
      }
      if (this.send(record)) sent += 1;
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
    // A stop may take the stop grace (the child ends its turn) plus the kill grace; never longer.
    const grace = readStopGraceMs() + this.options.settings.killGraceMs + 1000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(handles.map((handle) => handle.done)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, grace);
        timer.unref();
      }),
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

function toInFlight(task: TaskSnapshot): InFlightTask {
  return { taskId: task.taskId, agent: task.agent, task: task.task };
}
