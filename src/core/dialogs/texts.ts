/**
 * What the person reads about a child's questions and notices (pure): the waiting line of the progress widget,
 * the notice when a question is gone, a child's labelled notice, and the `/subagent-answer` replies.
 */
import { oneLine } from "../shared/format.ts";
import { askerLabel, questionLine } from "./question-label.ts";
import type { Asker } from "./question-label.ts";
import type { CloseReason, Question } from "./question-queue.ts";

/** The widget line of a waiting question: `? explore 01a2b3c4 asks: Allow rm -rf build?`. */
export function waitingLine(question: Pick<Question, "path" | "dialog">, waitingCount: number): string {
  const more = waitingCount > 1 ? ` (+${waitingCount - 1} more)` : "";
  return `? ${askerLabel(question.path)} ${questionLine(question.dialog)}${more} · /subagent-answer`;
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
