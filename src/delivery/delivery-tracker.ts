/**
 * Acknowledged delivery as a state machine, and what the model sees of results: each once.
 */
import { RESULT_CUSTOM_TYPE_NAME } from "./result-type.ts";

/*
 * Acknowledged delivery of `[subagent-result]` messages, as a pure state machine. A result counts as delivered
 * only once pi reports its message entering the conversation (`message_end` of the custom message); until then
 * it is "awaiting". pi can lose a message it was handed: Esc and the dequeue key clear pi's steer queue, and
 * a prompt pi refuses is only logged. pi can also hold one: after a failed or aborted model call the steer
 * queue keeps its messages until the next run starts, and that run then injects them.
 *
 * So at each safe moment (a run of the main agent ended, observed through `agent_end`) the tracker says which
 * awaiting results to send again:
 * - after a run that ended normally, pi's loop has drained its steer queue, so every awaiting result that
 *   was queued during it (or was the prompt of it) was dropped: all of them are sent again;
 * - after a failed or aborted run, an awaiting result may have been dropped (Esc) or may still sit in pi's
 *   queue: only the oldest is sent again, as a probe. Its run drains whatever pi still held (those are then
 *   acknowledged), and the end of that run, a normal one, sends the rest.
 * A copy that still arrives twice (the probe and a held original) is acknowledged as a duplicate, so the caller
 * can keep it from the model. A copy is the same delivery: the same task's same run. A resumed task keeps its
 * taskId, and its new run's result is a delivery of its own (`run`: see resultRun), never a copy of the old one. Each result is sent again at most `maxResends` times in one process; after that
 * it waits in the outbox for the next session start.
 */
const MAX_RESENDS = 3;

/** How pi took the message: as the prompt of a new run (agent idle) or into the steer queue (agent busy). */
export type SendRoute = "prompt" | "queue";

export interface Awaiting {
  /** Which run of the task was handed to pi (see resultRun). */
  run: string;
  order: number;
  route: SendRoute;
  /**
   * For a prompt: a run started after it was sent (so that run's end is the moment to
   * judge it).
   */
  runSeen: boolean;
  resends: number;
}

export class DeliveryTracker {
  private readonly maxResends: number;
  private readonly awaiting: Map<string, Awaiting> = new Map();
  /** Deliveries seen entering the conversation, as deliveryKey(taskId, run). */
  private readonly acknowledged: Set<string> = new Set();
  private order = 0;

  constructor(maxResends: number = MAX_RESENDS) {
    this.maxResends = maxResends;
  }

  /** A result (one run of `taskId`) was handed to pi (first send or a resend). */
  sent(taskId: string, route: SendRoute, run = ""): void {
    if (this.acknowledged.has(deliveryKey(taskId, run))) return;
    const previous = this.awaiting.get(taskId);
    const resends = previous?.run === run ? previous.resends : 0;
    this.awaiting.set(taskId, { run, order: this.order++, route, runSeen: false, resends });
  }

  /**
   * pi reported a result entering the conversation. A second report of the same run's result is a duplicate;
   * another run of the task (a resume) is a result of its own.
   */
  acknowledge(taskId: string, run = ""): "first" | "duplicate" {
    const key = deliveryKey(taskId, run);
    if (this.acknowledged.has(key)) return "duplicate";
    this.acknowledged.add(key);
    if (this.awaiting.get(taskId)?.run === run) this.awaiting.delete(taskId);
    return "first";
  }

  isAcknowledged(taskId: string, run = ""): boolean {
    return this.acknowledged.has(deliveryKey(taskId, run));
  }

  /** Handed to pi and not yet seen entering the conversation. */
  isAwaiting(taskId: string): boolean {
    return this.awaiting.has(taskId);
  }

  /** A run of the main agent started (`agent_start`): prompts sent before it are judged at its end. */
  runStarted(): void {
    for (const entry of this.awaiting.values()) entry.runSeen = true;
  }

  /**
   * A run ended (`agent_end`); `abnormal` when its last model call failed or was aborted. Returns the results
   * to send again now, oldest first, and counts those resends.
   */
  runEnded(abnormal: boolean): string[] {
    const candidates = [...this.awaiting.entries()]
      .filter(([, entry]) => (entry.route === "queue" || entry.runSeen) && entry.resends < this.maxResends)
      .sort(([, a], [, b]) => a.order - b.order)
      .map(([taskId]) => taskId);
    const chosen = abnormal ? candidates.slice(0, 1) : candidates;
    for (const taskId of chosen) (this.awaiting.get(taskId) as Awaiting).resends += 1;
    return chosen;
  }

  /** Forgets a result that will not be sent again by this process (for example its session went away). */
  drop(taskId: string): void {
    this.awaiting.delete(taskId);
  }
}

/*
 * What the model sees of `[subagent-result]` messages: each result once. A copy that entered the conversation
 * a second time (pi still held the original when it was sent again, or two paths delivered it) stays in pi's
 * session, marked `duplicate` in its details, but is left out of every model call. A copy is the same delivery:
 * the same task's same run (its `dispatchedAt`), or, for a message without one (a workflow's, or one stored
 * before runs were told apart), the same task's same envelope. A resumed task keeps its taskId, and its new run's
 * result is not a copy, even when its text is the old one's. Pure.
 */
/** The fields of pi's AgentMessage this looks at (custom messages carry customType and details). */
export interface ContextMessage {
  role: string;
  customType?: string;
  content?: unknown;
  details?: unknown;
}

interface ResultDetailsLike {
  taskId?: unknown;
  dispatchedAt?: unknown;
  duplicate?: unknown;
}

/** One delivery of a task: the task and which of its runs (a resume is another run under the same taskId). */
function deliveryKey(taskId: string, run: string): string {
  return `${taskId}\n${run}`;
}

/**
 * Which run of its task a result's details are from: the run's `dispatchedAt` (a resume is dispatched anew);
 * "" when the details do not say (a workflow's combined result, which never runs twice).
 */
export function resultRun(details: unknown): string {
  const dispatchedAt = (details as ResultDetailsLike | undefined)?.dispatchedAt;
  return typeof dispatchedAt === "number" ? String(dispatchedAt) : "";
}

export function isResultMessage(message: ContextMessage): boolean {
  return message.role === "custom" && message.customType === RESULT_CUSTOM_TYPE_NAME;
}

function resultTaskId(message: ContextMessage): string | undefined {
  const taskId = (message.details as ResultDetailsLike | undefined)?.taskId;
  return typeof taskId === "string" ? taskId : undefined;
}

/** The messages without later copies of a result; undefined when nothing had to be left out. */
export function withoutDuplicateResults<T extends ContextMessage>(messages: readonly T[]): T[] | undefined {
  const seen: Set<string> = new Set();
  let dropped = false;
  const kept = messages.filter((message) => {
    if (!isResultMessage(message)) return true;
    const taskId = resultTaskId(message);
    const run = resultRun(message.details);
    const copyKey =
      taskId === undefined
        ? undefined
        : deliveryKey(taskId, run === "" ? `content ${JSON.stringify(message.content ?? "")}` : `run ${run}`);
    const duplicate =
      (message.details as ResultDetailsLike | undefined)?.duplicate === true ||
      (copyKey !== undefined && seen.has(copyKey));
    if (copyKey !== undefined) seen.add(copyKey);
    if (duplicate) dropped = true;
    return !duplicate;
  });
  return dropped ? kept : undefined;
}
