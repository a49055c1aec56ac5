/**
 * The person's side of every background child's questions and notices (pure): one queue for the whole pi, a
 * route per task that feeds it, the rate limit on notices, and what the widget and `/subagent-watch` show. How a
 * question is put on the screen is the caller's (src/pi/dialogs/); this only decides what, and in which order.
 *
 * A task may keep at most QUESTIONS_PER_TASK_MAX questions waiting: the next ones are refused at once (the child
 * is answered `cancelled`, its result names them) and counted in one line of the widget, so a child asking in a
 * loop cannot bury the person in dialogs. `refuseTask` answers a task's whole queue `cancelled` in one go.
 */
import { NoticeLimit } from "./notice-limit.ts";
import { decodeNestedTitle } from "./nested-path.ts";
import { askerLabel, questionLine } from "./question-label.ts";
import type { Asker } from "./question-label.ts";
import { QuestionQueue } from "./question-queue.ts";
import type { CloseReason, Question } from "./question-queue.ts";
import { childNoticeText, noticesHeldBackText, questionGoneNotice, questionsRefusedNotice, waitingLine } from "./texts.ts";
import { CANCELLED } from "./child-ui-request.ts";
import type { DialogAnswer } from "./child-ui-request.ts";
import type { DialogRoute } from "./dialog-bridge.ts";
import type { NobodyReason } from "./unanswered.ts";

/** At most this many questions of one task wait for the person (the one shown included). */
export const QUESTIONS_PER_TASK_MAX = 3;

/** How a task's route reads the titles its child sends. */
export interface RouteOptions {
  /**
   * How many hops the task's child can have below it (the tree's depth limit minus its depth): a path in a
   * title is read only up to that many; 0 (the default) reads none, as for a child at the limit.
   */
  nestedHops?: number;
}

/** The questions of one task refused since its queue last emptied. */
interface Refusals {
  asker: Asker;
  count: number;
}

export interface QuestionBoardPorts {
  /** Shows the person a notice (a question gone, a child's notify). */
  notify(text: string, level: "info" | "warning" | "error"): void;
  /** Hears of each question as it joins the queue (the `subagent:asking` event for other extensions). */
  asked?(question: Question): void;
  now?: () => number;
}

export class QuestionBoard {
  readonly queue: QuestionQueue;
  private readonly ports: QuestionBoardPorts;
  private readonly replies: Map<number, (answer: DialogAnswer) => void> = new Map();
  private readonly changeListeners: Set<() => void> = new Set();
  private readonly closeListeners: Set<(question: Question, why: CloseReason) => void> = new Set();
  private readonly notices = new NoticeLimit();
  private readonly refusals: Map<string, Refusals> = new Map();

  constructor(ports: QuestionBoardPorts) {
    this.ports = ports;
    this.queue = new QuestionQueue({
      now: ports.now,
      reply: (question, answer) => {
        const reply = this.replies.get(question.key);
        this.replies.delete(question.key);
        reply?.(answer);
      },
      onClosed: (question, why) => {
        this.replies.delete(question.key);
        for (const listener of this.closeListeners) listener(question, why);
        // At shutdown nobody is left to read it.
        if (why !== "shutdown") this.ports.notify(questionGoneNotice(question, why), "warning");
      },
      onChange: () => {
        // A task whose queue emptied starts counting refusals afresh.
        for (const taskId of this.refusals.keys()) if (!this.queue.forTask(taskId)) this.refusals.delete(taskId);
        this.changed();
      },
    });
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Hears of each question closed unanswered (the presenter takes it off the screen). */
  onClosed(listener: (question: Question, why: CloseReason) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /**
   * The route of one task's dialogs: each question joins the queue labelled with the task (and the hops below it
   * its title may carry, see RouteOptions), or is refused when the task already has its fill waiting; each
   * notice is shown labelled, within the rate limit.
   */
  routeFor(task: Asker, options: RouteOptions = {}): DialogRoute {
    const path = [task];
    return {
      kind: "person",
      sink: {
        refuses: () => this.refusal(task),
        ask: (dialog, reply) => {
          // A nested child's question carries the rest of its path in its title, as far as its parents built it.
          const nested = decodeNestedTitle(dialog.title, options.nestedHops ?? 0);
          const question = this.queue.ask(task.taskId, [...path, ...nested.path], { ...dialog, title: nested.title });
          this.replies.set(question.key, reply);
          this.ports.asked?.(question);
          return { close: (why) => this.queue.close(question.key, why) };
        },
        notice: (notice) => {
          const verdict = this.notices.admit(task.taskId, (this.ports.now ?? Date.now)());
          if (verdict === "show") this.ports.notify(childNoticeText(path, notice.message), notice.level);
          else if (verdict === "show-suppression") this.ports.notify(noticesHeldBackText(path), "info");
        },
      },
    };
  }

  /**
   * Answers every waiting question of one task `cancelled` (the oldest question's task when none is named), the
   * one on the screen included; the task goes on. Undefined when no question of it waits.
   */
  refuseTask(taskId?: string): { asker: Asker; count: number } | undefined {
    const owner = taskId ?? this.queue.first()?.taskId;
    const first = owner === undefined ? undefined : this.queue.forTask(owner);
    if (!owner || !first) return undefined;
    const asker = first.path[0] ?? { agent: "subagent", taskId: owner };
    let count = 0;
    for (const question of this.queue.pending().filter((candidate) => candidate.taskId === owner)) {
      if (this.queue.answer(question.key, CANCELLED)) count += 1;
    }
    return { asker, count };
  }

  /** The widget's line while a question waits unshown (one is shown at a time; the rest are counted). */
  waitingLine(): string | undefined {
    const first = this.queue.first();
    if (!first || first.opened) return undefined;
    return waitingLine(first, this.queue.pending().length, this.refusals.get(first.taskId)?.count ?? 0);
  }

  /** Refuses a task's question when it already has its fill waiting: counts it, and tells the person once. */
  private refusal(task: Asker): NobodyReason | undefined {
    if (this.queue.countForTask(task.taskId) < QUESTIONS_PER_TASK_MAX) return undefined;
    const refusals = this.refusals.get(task.taskId) ?? { asker: task, count: 0 };
    refusals.count += 1;
    this.refusals.set(task.taskId, refusals);
    if (refusals.count === 1) this.ports.notify(questionsRefusedNotice(task, QUESTIONS_PER_TASK_MAX), "warning");
    this.changed();
    return "too many questions waiting";
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /** A task's oldest question in one line (`explore 01a2b3c4 asks: …`), for `/subagent-watch`. */
  questionOf(taskId: string): string | undefined {
    const question = this.queue.forTask(taskId);
    return question ? `${askerLabel(question.path)} ${questionLine(question.dialog)}` : undefined;
  }
}
