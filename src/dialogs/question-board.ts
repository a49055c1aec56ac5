/**
 * This pi's board of children's questions: a route per task, the notices and their limit, `/subagent-answer`'s arguments, and the texts.
 */
import { oneLine } from "../shared/text.ts";
import {
  askerLabel,
  questionLine,
  decodeNestedTitle,
  QuestionQueue,
  CANCELLED,
  type Asker,
  type CloseReason,
  type Question,
  type DialogAnswer,
  type DialogRoute,
  type NobodyReason,
} from "./child-dialogs.ts";

/*
 * What the person reads about a child's questions and notices (pure): the waiting line of the progress widget,
 * the notice when a question is gone, a child's labelled notice, and the `/subagent-answer` replies.
 */
/**
 * The widget line of a waiting question: `? explore 01a2b3c4 asks: Allow rm -rf build? (+2 more) · /subagent-answer`;
 * with ` · 12 more questions from explore refused` before the command when its task asked past the cap.
 */
export function waitingLine(
  question: Pick<Question, "path" | "dialog">,
  waitingCount: number,
  refusedCount = 0,
): string {
  const more = waitingCount > 1 ? ` (+${waitingCount - 1} more)` : "";
  const asker = question.path[0];
  const refused =
    refusedCount > 0 && asker
      ? ` · ${refusedCount} more ${refusedCount === 1 ? "question" : "questions"} from ${oneLine(asker.agent, 40)} refused`
      : "";
  return `? ${askerLabel(question.path)} ${questionLine(question.dialog)}${more}${refused} · /subagent-answer`;
}

/** Told once when a task asks past the cap: its next questions are refused, and how to refuse the rest. */
function questionsRefusedNotice(task: Asker, perTask: number): string {
  return `${askerLabel([task]).replace(/ asks:$/, "")} has ${perTask} questions waiting: its next ones are refused (cancelled). /subagent-answer refuse answers all of its questions cancelled.`;
}

/** `/subagent-answer refuse`: how many questions of which task were answered cancelled. */
export function questionsRefusedReply(asker: Asker, count: number): string {
  return `Refused ${count} ${count === 1 ? "question" : "questions"} of ${askerLabel([asker]).replace(/ asks:$/, "")} (answered cancelled); the task goes on.`;
}

const CLOSE_TEXTS: Record<CloseReason, string> = {
  cancelled: "the task was cancelled",
  "timed out": "the task timed out",
  budget: "the task reached its budget",
  shutdown: "pi is shutting down",
  ended: "the task ended",
};

function questionGoneNotice(question: Pick<Question, "path" | "dialog">, why: CloseReason): string {
  return `Question gone (${CLOSE_TEXTS[why]}): ${askerLabel(question.path)} ${questionLine(question.dialog)}`;
}

/** A child's notify, labelled: `explore 01a2b3c4 says: Build finished`. */
function childNoticeText(path: readonly Asker[], message: string): string {
  return `${askerLabel(path).replace(/ asks:$/, " says:")} ${oneLine(message, 200)}`;
}

function noticesHeldBackText(path: readonly Asker[]): string {
  return `${askerLabel(path).replace(/ asks:$/, "")}: more notices held back (a few every 10 s are shown)`;
}

export const NO_QUESTION_WAITING = "No subagent question is waiting.";
export const QUESTION_ALREADY_OPEN = "A subagent question is already open.";
export const NO_QUESTION_OF_TASK = "No subagent question of that task is waiting.";

/*
 * How many of a child's `notify` notices reach the person (pure): a few per task in a sliding window, then one
 * line saying the rest are held back, so a looping child cannot flood the screen.
 */
/** At most this many notices of one task in NOTICE_WINDOW_MS. */
const NOTICES_PER_WINDOW = 3;
const NOTICE_WINDOW_MS = 10_000;

export type NoticeVerdict = "show" | "show-suppression" | "drop";

export class NoticeLimit {
  private readonly shownAt: Map<string, number[]> = new Map();
  private readonly suppressed: Set<string> = new Set();
  private readonly perWindow: number;
  private readonly windowMs: number;

  constructor(perWindow = NOTICES_PER_WINDOW, windowMs = NOTICE_WINDOW_MS) {
    this.perWindow = perWindow;
    this.windowMs = windowMs;
  }

  /** What to do with a notice of `taskId` arriving at `now`: show it, say the rest are held back (once), or drop it. */
  admit(taskId: string, now: number): NoticeVerdict {
    const recent = (this.shownAt.get(taskId) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length < this.perWindow) {
      recent.push(now);
      this.shownAt.set(taskId, recent);
      this.suppressed.delete(taskId);
      return "show";
    }
    this.shownAt.set(taskId, recent);
    if (this.suppressed.has(taskId)) return "drop";
    this.suppressed.add(taskId);
    return "show-suppression";
  }

  /** Forgets a task (it ended). */
  forget(taskId: string): void {
    this.shownAt.delete(taskId);
    this.suppressed.delete(taskId);
  }
}

/*
 * What `/subagent-answer` was asked (pure): nothing (open the oldest question), or `refuse [task id or prefix]`
 * (answer every waiting question of one task `cancelled`; the oldest question's task when no id is given).
 */
export type AnswerArgs = { kind: "open" } | { kind: "refuse"; task?: string } | { kind: "unknown"; message: string };

export const ANSWER_USAGE =
  "Usage: /subagent-answer (open the oldest question) or /subagent-answer refuse [task id] (answer all of a task's questions cancelled).";

export function parseAnswerArgs(args: string): AnswerArgs {
  const words = args
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length === 0) return { kind: "open" };
  if (words[0] === "refuse" && words.length <= 2)
    return words[1] === undefined ? { kind: "refuse" } : { kind: "refuse", task: words[1] };
  return { kind: "unknown", message: ANSWER_USAGE };
}

/*
 * The person's side of every background child's questions and notices (pure): one queue for the whole pi, a
 * route per task that feeds it, the rate limit on notices, and what the widget and `/subagent-watch` show. How a
 * question is put on the screen is the caller's (src/pi/dialogs/); this only decides what, and in which order.
 *
 * A task may keep at most QUESTIONS_PER_TASK_MAX questions waiting: the next ones are refused at once (the child
 * is answered `cancelled`, its result names them) and counted in one line of the widget, so a child asking in a
 * loop cannot bury the person in dialogs. `refuseTask` answers a task's whole queue `cancelled` in one go.
 */
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
