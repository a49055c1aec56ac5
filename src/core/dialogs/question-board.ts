/**
 * The person's side of every background child's questions and notices (pure): one queue for the whole pi, a
 * route per task that feeds it, the rate limit on notices, and what the widget and `/subagent-watch` show. How a
 * question is put on the screen is the caller's (src/pi/dialogs/); this only decides what, and in which order.
 */
import { NoticeLimit } from "./notice-limit.ts";
import { decodeNestedTitle } from "./nested-path.ts";
import { askerLabel, questionLine } from "./question-label.ts";
import type { Asker } from "./question-label.ts";
import { QuestionQueue } from "./question-queue.ts";
import type { CloseReason, Question } from "./question-queue.ts";
import { childNoticeText, noticesHeldBackText, questionGoneNotice, waitingLine } from "./texts.ts";
import type { DialogAnswer } from "./child-ui-request.ts";
import type { DialogRoute } from "./dialog-bridge.ts";

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
        for (const listener of this.changeListeners) listener();
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
   * The route of one task's dialogs: each question joins the queue labelled with `path` and the task, each
   * notice is shown labelled, within the rate limit.
   */
  routeFor(task: Asker, parentPath: readonly Asker[] = []): DialogRoute {
    const path = [...parentPath, task];
    return {
      kind: "person",
      sink: {
        ask: (dialog, reply) => {
          // A nested child's question carries the rest of its path in its title.
          const nested = decodeNestedTitle(dialog.title);
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

  /** The widget's line while a question waits unshown (one is shown at a time; the rest are counted). */
  waitingLine(): string | undefined {
    const first = this.queue.first();
    if (!first || first.opened) return undefined;
    return waitingLine(first, this.queue.pending().length);
  }

  /** A task's oldest question in one line (`explore 01a2b3c4 asks: …`), for `/subagent-watch`. */
  questionOf(taskId: string): string | undefined {
    const question = this.queue.forTask(taskId);
    return question ? `${askerLabel(question.path)} ${questionLine(question.dialog)}` : undefined;
  }
}
