// @ts-check
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
import { DeliveryTracker } from "../delivery/delivery-tracker.js";
/** @import { SendRoute } from "../delivery/delivery-tracker.js" */
import { buildEnvelope } from "../delivery/envelope.js";
/** @import { InFlightTask } from "../delivery/envelope.js" */
import { addToOutbox, pendingFor, removeFromOutbox } from "../delivery/outbox.js";
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.js";
import { SaveFailureReporter } from "../delivery/save-failures.js";
import { ownIdentity } from "../run/proc-identity.js";
import { onProcessExit } from "../run/child-guard.js";
import { startRun as startChildRun } from "../run/runner.js";
import { readStopGraceMs } from "../run/stop-sequence.js";
/** @import { RunOutcome } from "../run/types.ts" */
import { MAX_TIMER_MS } from "../shared/run-settings.js";
/** @import { RunSettings } from "../shared/run-settings.js" */
/** @import { PreparedRun } from "../tool/prepare-dispatch.js" */
import { detailsFromRecord } from "./details.js";
/** @import { SubagentResultDetails } from "./details.js" */
import { recordFromOutcome } from "./record-from-outcome.js";
import { readMaxOutputChars, saveLongOutput } from "./output-limit.js";
import { readRecord, writeRecord } from "./record-store.js";
import { TaskRegistry } from "./registry.js";
/** @import { EnqueueResult, FinishedTask, TaskSnapshot } from "./registry.js" */
/** @import { CancelledBy, TaskRecord } from "./types.ts" */

export const RESULT_CUSTOM_TYPE = RESULT_CUSTOM_TYPE_NAME;

/**
 * @typedef {object} ResultMessage
 * @property {typeof RESULT_CUSTOM_TYPE} customType
 * @property {string} content
 * @property {true} display
 * @property {SubagentResultDetails} details
 */

/**
 * @typedef {object} BackgroundTasksOptions
 * @property {string} agentDir
 * @property {RunSettings} settings
 * @property {number} [maxOutputChars] How much of the output the main agent gets (default:
 *   PI_SUBAGENT_MAX_OUTPUT_CHARS, see output-limit.js).
 * @property {(message: ResultMessage) => void} send pi.sendMessage with steer delivery; throws when pi's context is
 *   stale.
 * @property {() => boolean} [isIdle] True while the main agent is idle (a message then starts a run of its own
 *   instead of being queued).
 * @property {(text: string) => void} [notify] Tells the person something (a write that failed); called at most once
 *   per place that failed.
 * @property {typeof startChildRun} [startRun]
 * @property {() => number} [now]
 */

/**
 * @typedef {object} Counts
 * @property {number} running
 * @property {number} queued
 * @property {number} done Tasks of this extension instance that ended (delivered or not).
 */

export class BackgroundTasks {
  /**
   * @private
   * @readonly
   * @type {BackgroundTasksOptions}
   */
  options;
  /**
   * @readonly
   * @type {TaskRegistry}
   */
  registry;
  /**
   * @private
   * @readonly
   * @type {Set<() => void>}
   */
  listeners = new Set();
  /**
   * @private
   * @readonly
   * @type {Set<(record: TaskRecord) => void>}
   */
  recordListeners = new Set();
  /**
   * @private
   * @readonly
   * @type {() => number}
   */
  now;
  /** @private */
  shuttingDown = false;
  /** @private */
  doneCount = 0;
  /**
   * @private
   * @readonly
   * @type {() => void}
   */
  removeExitHook;
  /** @readonly */
  delivery = new DeliveryTracker();
  /**
   * Results not yet acknowledged, kept in memory so delivery never depends on the disk.
   * @private
   * @readonly
   * @type {Map<string, TaskRecord>}
   */
  undelivered = new Map();
  /**
   * @private
   * @readonly
   * @type {SaveFailureReporter}
   */
  saveFailures;

  /** @param {BackgroundTasksOptions} options */
  constructor(options) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.saveFailures = new SaveFailureReporter(options.agentDir, (text) => options.notify?.(text));
    this.registry = new TaskRegistry({
      maxConcurrent: options.settings.maxConcurrent,
      startRun: options.startRun ?? startChildRun,
      onFinished: (finished) => this.onFinished(finished),
      onChange: () => this.emitChange(),
      now: this.now,
    });
    this.removeExitHook = onProcessExit(() => this.recordAllForExit());
  }

  /**
   * Hears of every ended task's record (the session ledger adds its usage).
   * @param {(record: TaskRecord) => void} listener
   * @returns {() => void}
   */
  onRecord(listener) {
    this.recordListeners.add(listener);
    return () => this.recordListeners.delete(listener);
  }

  /**
   * @param {() => void} listener
   * @returns {() => void}
   */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * @private
   * @returns {void}
   */
  emitChange() {
    for (const listener of this.listeners) listener();
  }

  /** @returns {Counts} */
  counts() {
    const running = this.registry.runningCount();
    return { running, queued: this.registry.size - running, done: this.doneCount };
  }

  /** @returns {TaskSnapshot[]} */
  snapshot() {
    return this.registry.snapshot();
  }

  /**
   * Starts (or queues) a prepared run in the background.
   * @param {PreparedRun} prepared
   * @param {string | undefined} parentSessionId
   * @returns {EnqueueResult}
   */
  dispatch(prepared, parentSessionId) {
    return this.registry.enqueue({
      taskId: prepared.taskId,
      agent: prepared.agent.name,
      task: prepared.task,
      parentSessionId,
      sessionFile: prepared.sessionFile,
      cwd: prepared.cwd,
      origin: prepared.origin,
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
        onSpawned: prepared.childStarted,
        budget: prepared.budget?.limits,
        now: this.now,
      }),
    });
  }

  /**
   * @param {string} taskId
   * @param {CancelledBy} by
   * @param {string} [reason]
   * @returns {boolean}
   */
  cancel(taskId, by, reason) {
    return this.registry.cancel(taskId, by, reason);
  }

  /**
   * @param {CancelledBy} by
   * @returns {number}
   */
  cancelAll(by) {
    return this.registry.cancelAll(by);
  }

  /**
   * Records (and, unless shutting down, delivers) a task that ended. Never throws: it runs from a promise.
   * @private
   * @param {FinishedTask} finished
   * @returns {void}
   */
  onFinished(finished) {
    this.doneCount += 1;
    const record = this.recordOf(finished);
    saveLongOutput(this.options.agentDir, record, this.options.maxOutputChars ?? readMaxOutputChars());
    record.envelope = buildEnvelope(record, finished.inFlight.map(toInFlight), this.options.settings);
    this.undelivered.set(record.taskId, record);
    this.saveRecord(record);
    for (const listener of this.recordListeners) {
      try {
        listener(record);
      } catch {
        // A listener's failure (the ledger's session write) must not cost the result its delivery.
      }
    }
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
    if (!this.shuttingDown) this.send(record);
  }

  /**
   * Writes a record; a failure is reported (once per place) and otherwise ignored: memory still has it.
   * @private
   * @param {TaskRecord} record
   * @returns {void}
   */
  saveRecord(record) {
    try {
      writeRecord(this.options.agentDir, record);
    } catch (error) {
      this.saveFailures.record(record, error);
    }
  }

  /**
   * @private
   * @param {FinishedTask} finished
   * @returns {TaskRecord}
   */
  recordOf(finished) {
    const launch = finished.launch;
    const context = {
      taskId: launch.taskId,
      agent: launch.agent,
      task: launch.task,
      mode: /** @type {const} */ ("async"),
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
      worktree: launch.worktree,
    };
    return recordFromOutcome(context, finished.outcome ?? this.neverStarted(finished));
  }

  /**
   * A task cancelled while queued never ran: its duration counts from dispatch.
   * @private
   * @param {FinishedTask} finished
   * @returns {RunOutcome}
   */
  neverStarted(finished) {
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

  /**
   * @private
   * @param {TaskRecord} record
   * @returns {boolean}
   */
  send(record) {
    if (!record.envelope) return false;
    /** @type {SendRoute} */
    let route = "queue";
    try {
      route = this.options.isIdle?.() ? "prompt" : "queue";
    } catch {
      // a stale context: the send below fails the same way
    }
    try {
      this.options.send({ customType: RESULT_CUSTOM_TYPE, content: record.envelope, display: true, details: detailsFromRecord(record) });
    } catch (error) {
      record.deliveryError = error instanceof Error ? error.message : String(error);
      this.saveRecord(record);
      return false;
    }
    this.delivery.sent(record.taskId, route);
    return true;
  }

  /**
   * Outbox entries this process may deliver plus results only memory holds (their outbox write failed).
   * @private
   * @param {string} parentSessionId
   * @returns {string[]}
   */
  pendingIds(parentSessionId) {
    const ids = new Set(pendingFor(this.options.agentDir, parentSessionId));
    for (const record of this.undelivered.values()) if (record.parentSessionId === parentSessionId) ids.add(record.taskId);
    const finishedAt = (/** @type {string} */ taskId) => this.undelivered.get(taskId)?.finishedAt ?? 0;
    return [...ids].sort((a, b) => finishedAt(a) - finishedAt(b) || (a < b ? -1 : 1));
  }

  /**
   * The record of a result not yet delivered: from memory, else from disk.
   * @private
   * @param {string} taskId
   * @returns {TaskRecord | undefined}
   */
  undeliveredRecord(taskId) {
    return this.undelivered.get(taskId) ?? readRecord(this.options.agentDir, taskId);
  }

  /**
   * Called when a `subagent-result` message entered the conversation. The first time, the result is now
   * delivered; a later copy of the same result (pi held one that was also sent again) is a duplicate, which
   * the caller keeps from the model.
   * @param {string} taskId
   * @returns {"first" | "duplicate"}
   */
  confirmDelivered(taskId) {
    const ack = this.delivery.acknowledge(taskId);
    if (ack === "duplicate") return ack;
    const record = this.undeliveredRecord(taskId);
    this.undelivered.delete(taskId);
    if (record && !record.delivered) {
      record.delivered = true;
      record.deliveredAt = this.now();
      record.deliveryError = undefined;
      this.saveRecord(record);
    }
    try {
      removeFromOutbox(this.options.agentDir, taskId);
    } catch (error) {
      if (record) this.saveFailures.outbox(record, error);
    }
    return ack;
  }

  /**
   * A safe moment: a run of the main agent ended (`abnormal` when its model call failed or was aborted) and
   * pi is idle. Sends again what pi dropped (see DeliveryTracker), then, after a normal end, anything of this
   * session waiting in the outbox that this process may deliver. Returns how many results were sent.
   * @param {string | undefined} parentSessionId
   * @param {boolean} abnormal
   * @returns {number}
   */
  afterRun(parentSessionId, abnormal) {
    if (this.shuttingDown) return 0;
    let sent = 0;
    for (const taskId of this.delivery.runEnded(abnormal)) {
      const record = this.undeliveredRecord(taskId);
      if (!record || record.delivered) {
        this.delivery.drop(taskId);
        continue;
      }
      if (this.send(record)) sent += 1;
    }
    if (!abnormal && parentSessionId) sent += this.redeliver(parentSessionId);
    return sent;
  }

  /**
   * Sends, oldest first, the results of `parentSessionId` that were recorded but never delivered and that this
   * process may deliver (its own, or those of a pi process that died). Results already handed to pi and not
   * yet seen are left to the delivery tracker.
   * @param {string} parentSessionId
   * @returns {number}
   */
  redeliver(parentSessionId) {
    let sent = 0;
    for (const taskId of this.pendingIds(parentSessionId)) {
      if (this.registry.has(taskId) || this.delivery.isAwaiting(taskId)) continue;
      const record = this.undeliveredRecord(taskId);
      if (!record || record.delivered || this.delivery.isAcknowledged(taskId)) {
        try {
          removeFromOutbox(this.options.agentDir, taskId);
        } catch {
          // harmless: the record says delivered, and the next start tries again
        }
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
   * @returns {Promise<void>}
   */
  async shutdown() {
    this.shuttingDown = true;
    const handles = this.registry.runningHandles();
    this.registry.cancelAll("none");
    // A stop may take the stop grace (the child ends its turn) plus the kill grace; never longer, and never
    // above what a timer can wait (a longer delay would fire at once).
    const grace = Math.min(readStopGraceMs() + this.options.settings.killGraceMs + 1000, MAX_TIMER_MS);
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    await Promise.race([
      Promise.all(handles.map((handle) => handle.done)),
      /** @type {Promise<void>} */ (new Promise((resolve) => {
        timer = setTimeout(resolve, grace);
        timer.unref();
      })),
    ]);
    clearTimeout(timer);
    // Anything still not ended is recorded now; the exit hook would otherwise do it.
    this.recordAllForExit();
    this.removeExitHook();
  }

  /**
   * Synchronous: records every task still in flight as cancelled by shutdown (pi is exiting).
   * @private
   * @returns {void}
   */
  recordAllForExit() {
    this.shuttingDown = true;
    for (const finished of this.registry.drainForExit()) this.onFinished(finished);
  }
}

/**
 * @param {TaskSnapshot} task
 * @returns {InFlightTask}
 */
function toInFlight(task) {
  return { taskId: task.taskId, agent: task.agent, task: task.task };
}
