/**
 * What the person reads about a child's questions and notices (pure): the waiting line of the progress widget,
 * the notice when a question is gone, a child's labelled notice, and the `/subagent-answer` replies.
 */
import { oneLine } from "../shared/format.ts";
import { askerLabel, questionLine } from "./question-label.ts";
import type { Asker } from "./question-label.ts";
import type { CloseReason, Question } from "./question-queue.ts";

/**
 * The widget line of a waiting question: `? explore 01a2b3c4 asks: Allow rm -rf build? (+2 more) · /subagent-answer`;
 * with ` · 12 more questions from explore refused` before the command when its task asked past the cap.
 */
export function waitingLine(question: Pick<Question, "path" | "dialog">, waitingCount: number, refusedCount = 0): string {
  const more = waitingCount > 1 ? ` (+${waitingCount - 1} more)` : "";
  const asker = question.path[0];
  const refused = refusedCount > 0 && asker ? ` · ${refusedCount} more ${refusedCount === 1 ? "question" : "questions"} from ${oneLine(asker.agent, 40)} refused` : "";
  return `? ${askerLabel(question.path)} ${questionLine(question.dialog)}${more}${refused} · /subagent-answer`;
}

/** Told once when a task asks past the cap: its next questions are refused, and how to refuse the rest. */
export function questionsRefusedNotice(task: Asker, perTask: number): string {
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

export function questionGoneNotice(question: Pick<Question, "path" | "dialog">, why: CloseReason): string {
  return `Question gone (${CLOSE_TEXTS[why]}): ${askerLabel(question.path)} ${questionLine(question.dialog)}`;
}

/** A child's notify, labelled: `explore 01a2b3c4 says: Build finished`. */
export function childNoticeText(path: readonly Asker[], message: string): string {
  return `${askerLabel(path).replace(/ asks:$/, " says:")} ${oneLine(message, 200)}`;
}

export function noticesHeldBackText(path: readonly Asker[]): string {
  return `${askerLabel(path).replace(/ asks:$/, "")}: more notices held back (a few every 10 s are shown)`;
}

export const NO_QUESTION_WAITING = "No subagent question is waiting.";
export const QUESTION_ALREADY_OPEN = "A subagent question is already open.";
export const NO_QUESTION_OF_TASK = "No subagent question of that task is waiting.";
