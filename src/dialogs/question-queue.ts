/**
 * The person's queue of subagent questions (pure): questions wait in arrival order and the person sees one at a
 * time. A question leaves the queue once, either answered (the answer goes back to the child that asked, Esc
 * being `cancelled`) or closed (its task stopped: cancel, timeout, budget, the child's exit, pi's shutdown), in
 * which case the child gets nothing more from here and the person is told it is gone.
 */
import type { Asker } from "./question-label.ts";
import type { ChildDialog, DialogAnswer } from "./child-ui-request.ts";
import type { StopCause } from "../shared/run-settings.ts";

/** Why a question left the queue without an answer. */
export type CloseReason = "cancelled" | "timed out" | "budget" | "shutdown" | "ended";

export interface Question {
  /** Arrival number, unique in this queue. */
  readonly key: number;
  /** The task of this pi the question came through (for a nested one: the child of this pi on its path). */
  readonly taskId: string;
  /** Who asks, outermost first; the last is the child that asked. */
  readonly path: readonly Asker[];
  readonly dialog: ChildDialog;
  readonly askedAt: number;
  /** True once shown to the person; it stays first until answered or closed. */
  opened: boolean;
}

export interface QuestionQueueOptions {
  /** Sends the answer to the child that asked; called once per answered question. */
  reply: (question: Question, answer: DialogAnswer) => void;
  /** Tells the person a question is gone unanswered (it may be on the screen). */
  onClosed?: (question: Question, why: CloseReason) => void;
  /** Called after every change (the widget redraws). */
  onChange?: () => void;
  now?: () => number;
}

export class QuestionQueue {
  private readonly options: QuestionQueueOptions;
  private readonly waiting: Question[] = [];
  private nextKey = 1;

  constructor(options: QuestionQueueOptions) {
    this.options = options;
  }

  ask(taskId: string, path: readonly Asker[], dialog: ChildDialog): Question {
    const question: Question = { key: this.nextKey++, taskId, path: [...path], dialog, askedAt: (this.options.now ?? Date.now)(), opened: false };
    this.waiting.push(question);
    this.options.onChange?.();
    return question;
  }

  /** The question the person sees next (or sees now, when it is open): the oldest. */
  first(): Question | undefined {
    return this.waiting[0];
  }

  /** All questions still waiting, oldest first. */
  pending(): readonly Question[] {
    return this.waiting;
  }

  /** How many questions of one task wait (the one shown included). */
  countForTask(taskId: string): number {
    return this.waiting.filter((question) => question.taskId === taskId).length;
  }

  /** The oldest question of one task (what `/subagent-watch` of that task shows). */
  forTask(taskId: string): Question | undefined {
    return this.waiting.find((question) => question.taskId === taskId);
  }

  /**
   * Marks the oldest question as shown and returns it, or returns undefined when a question is already shown
   * (one at a time) or none waits.
   */
  openFirst(): Question | undefined {
    const question = this.waiting[0];
    if (!question || question.opened) return undefined;
    question.opened = true;
    this.options.onChange?.();
    return question;
  }

  /** Hands a shown question back to the queue unanswered (the dialog could not be shown), keeping its place. */
  reopen(key: number): void {
    const question = this.waiting.find((candidate) => candidate.key === key);
    if (!question || !question.opened) return;
    question.opened = false;
    this.options.onChange?.();
  }

  /** The person's answer; false when the question already left the queue (closed while shown). */
  answer(key: number, answer: DialogAnswer): boolean {
    const question = this.take(key);
    if (!question) return false;
    this.options.reply(question, answer);
    this.options.onChange?.();
    return true;
  }

  /** Closes one question unanswered (its run is stopping); false when it already left the queue. */
  close(key: number, why: CloseReason): boolean {
    const question = this.take(key);
    if (!question) return false;
    this.options.onClosed?.(question, why);
    this.options.onChange?.();
    return true;
  }

  /** Closes every question of one task; returns how many. */
  closeTask(taskId: string, why: CloseReason): number {
    return this.closeWhere((question) => question.taskId === taskId, why);
  }

  /** Closes every question (pi's shutdown); returns how many. */
  closeAll(why: CloseReason): number {
    return this.closeWhere(() => true, why);
  }

  private closeWhere(match: (question: Question) => boolean, why: CloseReason): number {
    const closing = this.waiting.filter(match);
    for (const question of closing) this.take(question.key);
    for (const question of closing) this.options.onClosed?.(question, why);
    if (closing.length > 0) this.options.onChange?.();
    return closing.length;
  }

  private take(key: number): Question | undefined {
    const index = this.waiting.findIndex((question) => question.key === key);
    if (index < 0) return undefined;
    return this.waiting.splice(index, 1)[0];
  }
}

/** The close reason of a run stopped from outside (no cause: the child ended by itself). */
export function closeReasonOf(cause: StopCause | undefined): CloseReason {
  switch (cause) {
    case "aborted":
      return "cancelled";
    case "activity_timeout":
    case "hard_timeout":
      return "timed out";
    case "budget":
      return "budget";
    case "killed_on_shutdown":
      return "shutdown";
    default:
      return "ended";
  }
}
