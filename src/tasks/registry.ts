/**
 * The registry of background tasks: queued and running ones, in dispatch order. It owns the concurrency limit
 * (a FIFO queue; a task starts as a slot frees), starts runs, and on each end hands the finished task to
 * `onFinished` with a snapshot of the tasks still in flight. It knows nothing of pi: delivery, records and UI
 * are the caller's.
 */
import type { BudgetLimits } from "../budget/limits.ts";
import { outcomeAtExit } from "../run/outcome.ts";
import type { RunHandle, RunSpec } from "../run/runner.ts";
import type { RunOutcome, RunState } from "../run/event-reducer.ts";
import { markedMessage, type MessageSender } from "../run/rpc.ts";
import type { CancelledBy, TaskMessage, TaskOrigin, WorkflowMembership, WorktreeFinisher } from "../records/record.ts";
import type { ResolvedModelConfig } from "../config/load.ts";

/** What the registry needs to start one task (prepared by the dispatch path). */
export interface TaskLaunch {
  taskId: string;
  agent: string;
  task: string;
  parentSessionId?: string;
  sessionFile: string;
  cwd: string;
  /** Depth and context, kept in the task's record. */
  origin?: TaskOrigin;
  /** The model and thinking it starts with, with their sources, kept in its record. */
  resolved?: ResolvedModelConfig;
  /** The batch or chain it is a part of. */
  workflow?: WorkflowMembership;
  /** Builds the run spec; called when the task leaves the queue. */
  spec: () => Omit<RunSpec, "onUpdate">;
  /**
   * The task's budget limits and any capped call value (shown in rows and kept in
   * its record).
   */
  budget?: BudgetLimits;
  budgetNotes?: string[];
  /**
   * Frees what the dispatch took (the agent's prompt file, session lock); called once the task
   * has ended. A throw (a file that could not be removed) never costs the result: it is handed to
   * `onFinished` as `cleanupError`.
   */
  release: () => void;
  /**
   * isolation "worktree": the task's worktree, finished when its record is
   * made.
   */
  worktree?: WorktreeFinisher;
}

export interface TaskSnapshot {
  taskId: string;
  agent: string;
  task: string;
  status: "queued" | "running";
  dispatchedAt: number;
  startedAt?: number;
  /** Live run state (absent while queued). */
  state?: RunState;
  cancelRequested?: { by: CancelledBy; reason?: string };
  /** Messages sent to it so far, oldest first. */
  messages?: readonly TaskMessage[];
  /** Its budget limits, if any (the rows show use against them). */
  budget?: BudgetLimits;
  /** A question of it waiting for the person, in one line (filled in by the background tasks, not the registry). */
  question?: string;
  /** The sandbox it runs in (absent: none). */
  sandbox?: TaskOrigin["sandbox"];
  /** The batch or chain it is a part of (the widget groups their rows). */
  workflow?: WorkflowMembership;
}

export interface FinishedTask {
  launch: TaskLaunch;
  dispatchedAt: number;
  /** Absent when the task never started (cancelled or dropped while queued). */
  outcome?: RunOutcome;
  cancelledBy?: CancelledBy;
  cancelReason?: string;
  messages?: TaskMessage[];
  /** The tasks still queued or running when this one ended (never itself). */
  inFlight: TaskSnapshot[];
  /** Why `release()` failed, if it did (the task's result is delivered all the same). */
  cleanupError?: unknown;
}

export interface RegistryOptions {
  maxConcurrent: number;
  startRun: (spec: RunSpec) => RunHandle;
  onFinished: (finished: FinishedTask) => void;
  /**
   * Called if ending a task threw all the same (a bug in `onFinished`): it runs from a promise, where a
   * throw would otherwise end pi as an unhandled rejection.
   */
  onFinishError?: (taskId: string, error: unknown) => void;
  /** Called whenever a task is added, starts, progresses or ends. */
  onChange?: () => void;
  now?: () => number;
}

export interface Entry {
  launch: TaskLaunch;
  dispatchedAt: number;
  handle?: RunHandle;
  cancel?: { by: CancelledBy; reason?: string };
  messages: TaskMessage[];
}

/**
 * What became of a message: `steered` to the running child, `queued` with the task's prompt, or refused:
 * `finished` (the run is over or being stopped), `unknown` (not in flight here), `unsupported` (a JSON child),
 * `limit` (the main agent has sent this task MAX_AGENT_MESSAGES_PER_TASK messages already).
 */
export type MessageOutcome = "steered" | "queued" | "finished" | "unknown" | "unsupported" | "limit";

/**
 * The most messages the main agent may send one task: a main agent caught in a loop would otherwise keep the
 * child busy (and paying) forever. The person's own messages (/subagent-message) are not limited.
 */
export const MAX_AGENT_MESSAGES_PER_TASK = 20;

/** A queued task's prompt with the messages it received while waiting, each marked as not part of the task. */
export function promptWithQueuedMessages(prompt: string, messages: readonly TaskMessage[]): string {
  return [prompt, ...messages.map((message) => markedMessage(message.text, message.from, "queued"))].join("\n\n");
}

/** The status a refused cancel names: the run's answer was complete before the cancel arrived (its result follows). */
export const CANCEL_TOO_LATE_STATUS = "its answer was complete before the cancel arrived";

/**
 * The last form: the run could not even be started (its failed result is recorded and delivered like any other).
 */
export type EnqueueResult =
  | { started: true }
  | { started: false; position: number; running: number }
  | { started: false; failed: true; errorMessage: string };

export class TaskRegistry {
  private readonly options: RegistryOptions;
  private readonly entries: Map<string, Entry> = new Map();
  private readonly queue: string[] = [];
  /** Why a task that was just enqueued could not start (read and cleared by enqueue). */
  private readonly startFailures: Map<string, string> = new Map();
  private enqueueing: string | undefined;
  private readonly now: () => number;

  constructor(options: RegistryOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  has(taskId: string): boolean {
    return this.entries.has(taskId);
  }

  get size(): number {
    return this.entries.size;
  }

  runningCount(): number {
    let running = 0;
    for (const entry of this.entries.values()) if (entry.handle) running++;
    return running;
  }

  enqueue(launch: TaskLaunch): EnqueueResult {
    if (this.entries.has(launch.taskId)) throw new Error(`task ${launch.taskId} is already in flight`);
    this.entries.set(launch.taskId, { launch, dispatchedAt: this.now(), messages: [] });
    this.queue.push(launch.taskId);
    this.enqueueing = launch.taskId;
    try {
      this.pump();
    } finally {
      this.enqueueing = undefined;
    }
    this.options.onChange?.();
    const failure = this.startFailures.get(launch.taskId);
    if (failure !== undefined) {
      this.startFailures.delete(launch.taskId);
      return { started: false, failed: true, errorMessage: failure };
    }
    const position = this.queue.indexOf(launch.taskId);
    return position < 0 ? { started: true } : { started: false, position: position + 1, running: this.runningCount() };
  }

  /** Queued and running tasks in dispatch order. */
  snapshot(except?: string): TaskSnapshot[] {
    const list: TaskSnapshot[] = [];
    for (const [taskId, entry] of this.entries) {
      if (taskId === except) continue;
      list.push({
        taskId,
        agent: entry.launch.agent,
        task: entry.launch.task,
        status: entry.handle ? "running" : "queued",
        dispatchedAt: entry.dispatchedAt,
        startedAt: entry.handle?.startedAt,
        state: entry.handle?.state,
        cancelRequested: entry.cancel,
        messages: entry.messages,
        budget: entry.launch.budget,
        sandbox: entry.launch.origin?.sandbox,
        workflow: entry.launch.workflow,
      });
    }
    return list;
  }

  get(taskId: string): TaskSnapshot | undefined {
    return this.snapshot().find((task) => task.taskId === taskId);
  }

  /**
   * Cancels a queued or running task. A running one is stopped (its tree killed) and ends through the normal
   * path; a queued one ends at once. Returns false when the id is not in flight.
   */
  cancel(taskId: string, by: CancelledBy, reason?: string): boolean {
    const entry = this.entries.get(taskId);
    if (!entry) return false;
    if (entry.cancel) return true;
    if (entry.handle) {
      // A run whose answer is already complete is not cancelled: its result says what it did (never both).
      if (!entry.handle.stop(by === "none" ? "killed_on_shutdown" : "aborted")) return false;
      entry.cancel = { by, reason };
    } else {
      entry.cancel = { by, reason };
      this.queue.splice(this.queue.indexOf(taskId), 1);
      this.finish(taskId, undefined);
    }
    this.options.onChange?.();
    return true;
  }

  /** Cancels everything in flight; returns how many tasks were cancelled. */
  cancelAll(by: CancelledBy, reason?: string): number {
    let cancelled = 0;
    for (const id of [...this.entries.keys()]) if (this.cancel(id, by, reason)) cancelled += 1;
    return cancelled;
  }

  /** Whether a cancel of this task would be refused because its run is over (its answer is complete). */
  isOver(taskId: string): boolean {
    return this.entries.get(taskId)?.handle?.over === true;
  }

  /** Sends a message to a queued or running task and records it. */
  message(taskId: string, from: MessageSender, text: string): MessageOutcome {
    const entry = this.entries.get(taskId);
    if (!entry) return "unknown";
    if (entry.cancel) return "finished";
    if (
      from === "agent" &&
      entry.messages.filter((message) => message.from === "agent").length >= MAX_AGENT_MESSAGES_PER_TASK
    )
      return "limit";
    if (!entry.handle) {
      entry.messages.push({ at: this.now(), from, text, delivery: "queued" });
      this.options.onChange?.();
      return "queued";
    }
    const sent = entry.handle.steer(markedMessage(text, from, "running"));
    if (sent === "unsupported") return "unsupported";
    if (sent === "ended") return "finished";
    entry.messages.push({ at: this.now(), from, text, delivery: "steer" });
    this.options.onChange?.();
    return "steered";
  }

  /** Running tasks' handles (for the shutdown path, which must wait for or force their end). */
  runningHandles(): RunHandle[] {
    return [...this.entries.values()].flatMap((entry) => (entry.handle ? [entry.handle] : []));
  }

  /**
   * For a process that is exiting: ends every task at once, synchronously, as cancelled by shutdown, with what
   * each run had produced so far. The caller records them; the child guard kills the trees right after. Later
   * `done` events of those runs are ignored.
   */
  drainForExit(): FinishedTask[] {
    const finished: FinishedTask[] = [];
    const at = this.now();
    for (const [taskId, entry] of this.entries) {
      this.entries.delete(taskId);
      try {
        entry.launch.release();
      } catch {
        // exiting anyway
      }
      const handle = entry.handle;
      finished.push({
        launch: entry.launch,
        dispatchedAt: entry.dispatchedAt,
        outcome: handle ? outcomeAtExit(handle, at) : undefined,
        cancelledBy: "none",
        messages: entry.messages,
        inFlight: [],
      });
    }
    this.queue.length = 0;
    return finished;
  }

  /** Notifies listeners that live run state changed. */
  touch(): void {
    this.options.onChange?.();
  }

  private pump(): void {
    while (this.queue.length > 0 && this.runningCount() < this.options.maxConcurrent) {
      const taskId = this.queue.shift() as string;
      const entry = this.entries.get(taskId);
      if (!entry) continue;
      let handle: RunHandle;
      try {
        const spec = entry.launch.spec();
        const command =
          entry.messages.length > 0
            ? { ...spec.command, prompt: promptWithQueuedMessages(spec.command.prompt, entry.messages) }
            : spec.command;
        handle = this.options.startRun({ ...spec, command, onUpdate: () => this.options.onChange?.() });
      } catch (error) {
        // Nothing ran: end the task as failed without an outcome-less gap in the record.
        const outcome = failedToStart(this.now(), error);
        if (taskId === this.enqueueing) this.startFailures.set(taskId, outcome.errorMessage ?? "");
        this.finish(taskId, outcome);
        continue;
      }
      entry.handle = handle;
      handle.done
        .then((outcome) => this.finish(taskId, outcome))
        .catch((error: unknown) => {
          try {
            this.options.onFinishError?.(taskId, error);
          } catch {
            // nothing left to tell
          }
        });
    }
  }

  private finish(taskId: string, outcome: RunOutcome | undefined): void {
    const entry = this.entries.get(taskId);
    if (!entry) return;
    this.entries.delete(taskId);
    let cleanupError: unknown;
    try {
      entry.launch.release();
    } catch (error) {
      // A file that could not be removed (a read-only or full disk) must not cost the result.
      cleanupError = error;
    }
    const finished: FinishedTask = {
      launch: entry.launch,
      dispatchedAt: entry.dispatchedAt,
      outcome,
      cancelledBy: entry.cancel?.by,
      cancelReason: entry.cancel?.reason,
      messages: entry.messages,
      inFlight: this.snapshot(),
      ...(cleanupError === undefined ? {} : { cleanupError }),
    };
    this.pump();
    this.options.onFinished(finished);
    this.options.onChange?.();
  }
}

function failedToStart(now: number, error: unknown): RunOutcome {
  return {
    status: "failed",
    exitCode: null,
    signal: null,
    stopReason: "error",
    errorMessage: `could not start the subagent process: ${error instanceof Error ? error.message : String(error)}`,
    output: "",
    usage: { turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    stderrTail: "",
  };
}
