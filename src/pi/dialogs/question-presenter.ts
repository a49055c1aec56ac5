/**
 * Puts the person's subagent questions on pi's screen, one at a time, with pi's own dialogs (`ctx.ui.select`,
 * `confirm`, `input`, `editor`; on pi 1.x those report pi as blocked on a question to the terminal themselves).
 * A question never takes the keys the person is typing: it opens by itself only while the main agent is idle and
 * the editor is empty, and otherwise waits as a line of the progress widget until then or until
 * `/subagent-answer` opens it. A question closed while shown (its task stopped) is taken off the screen.
 *
 * Keys meant for something else never answer a question: after one closes, the next waits QUESTION_GAP_MS (its
 * widget line shows meanwhile), so what the person types right after answering lands in the editor, and the
 * editor rule above then keeps the question waiting; and a child's `confirm` is shown with No first (pi's own
 * confirm starts on Yes).
 */
import type { ExtensionUIContext } from "@mariozechner/pi-coding-agent";
import { answerOf, CANCELLED, labelledTitle, type Question } from "../../dialogs/child-dialogs.ts";
import type { QuestionBoard } from "../../dialogs/question-board.ts";

export type PresenterUi = Pick<ExtensionUIContext, "select" | "confirm" | "input" | "editor" | "getEditorText">;

/** The part of pi's context the presenter reads. */
export interface PresenterContext {
  ui: PresenterUi;
  isIdle(): boolean;
}

/** How often a waiting question checks whether the person can be asked now (the editor has no event). */
const QUESTION_POLL_MS = 300;
/** After a question closes, the next opens by itself no sooner than this: keys typed meanwhile go to the editor. */
export const QUESTION_GAP_MS = 1000;
/** `PI_SUBAGENT_QUESTION_PAUSE_MS`: the pause between questions in ms (a whole number ≥ 0), else QUESTION_GAP_MS. */
const QUESTION_PAUSE_ENV = "PI_SUBAGENT_QUESTION_PAUSE_MS";
export function questionPauseMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[QUESTION_PAUSE_ENV]?.trim();
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : QUESTION_GAP_MS;
}
/** A child's confirm as the person sees it: No first, so Enter alone never says Yes. */
const CONFIRM_CHOICES = ["No", "Yes"];

export interface PresenterTiming {
  pollMs: number;
  gapMs: number;
}

export type OpenResult = "opened" | "none" | "already-open";

export class QuestionPresenter {
  private readonly board: QuestionBoard;
  private readonly context: () => PresenterContext | undefined;
  private readonly timing: PresenterTiming;
  private poll: NodeJS.Timeout | undefined;
  /** No question opens by itself before this time (the one before has just closed). */
  private calmUntil = 0;
  private readonly shown: Map<number, AbortController> = new Map();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    board: QuestionBoard,
    context: () => PresenterContext | undefined,
    timing: Partial<PresenterTiming> = {},
  ) {
    this.board = board;
    this.context = context;
    this.timing = { pollMs: QUESTION_POLL_MS, gapMs: QUESTION_GAP_MS, ...timing };
    this.unsubscribe.push(
      board.onChange(() => {
        this.takeDownAnswered();
        this.poke();
      }),
    );
    this.unsubscribe.push(
      board.onClosed((question) => {
        const shown = this.shown.get(question.key);
        if (!shown) return;
        this.calm();
        shown.abort();
      }),
    );
  }

  /** Opens the oldest waiting question if the person can answer it now; otherwise checks again soon. */
  poke(): void {
    const first = this.board.queue.first();
    if (!first || first.opened) {
      this.stopPolling();
      return;
    }
    const ctx = this.context();
    // No session (before its start, after its end): the next session's start pokes again.
    if (!ctx) {
      this.stopPolling();
      return;
    }
    if (Date.now() >= this.calmUntil && canAnswer(ctx)) {
      this.stopPolling();
      this.open(ctx);
      return;
    }
    if (!this.poll) {
      this.poll = setInterval(() => this.poke(), this.timing.pollMs);
      this.poll.unref();
    }
  }

  /** Opens the oldest waiting question now, whatever the editor holds (the person asked for it). */
  open(ctx: PresenterContext): OpenResult {
    const first = this.board.queue.first();
    if (!first) return "none";
    if (first.opened) return "already-open";
    const question = this.board.queue.openFirst();
    if (!question) return "already-open";
    this.show(ctx.ui, question);
    return "opened";
  }

  /** Takes what is shown off the screen and stops checking (the session is going away; a new one may follow). */
  detach(): void {
    this.stopPolling();
    for (const controller of this.shown.values()) controller.abort();
  }

  /** Stops following the board altogether. */
  dispose(): void {
    this.detach();
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  private show(ui: PresenterUi, question: Question): void {
    const controller = new AbortController();
    this.shown.set(question.key, controller);
    const dialog = question.dialog;
    // The child's texts were stripped of control sequences when its request was read (src/dialogs/child-dialogs.ts).
    const title = labelledTitle(question.path, dialog.title);
    const options = { signal: controller.signal };
    let answer: Promise<string | boolean | undefined>;
    try {
      switch (dialog.method) {
        case "select":
          answer = ui.select(title, dialog.options ?? [], options);
          break;
        case "confirm":
          answer = ui
            .select(`${title}\n${dialog.message ?? ""}`, CONFIRM_CHOICES, options)
            .then((chosen) => (chosen === undefined ? undefined : chosen === "Yes"));
          break;
        case "input":
          answer = ui.input(title, dialog.placeholder, options);
          break;
        default:
          // pi's editor dialog takes no signal: a question closed while it is open just drops the late answer.
          answer = ui.editor(title, dialog.prefill);
      }
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer
      .then(
        (chosen) => {
          // Before the answer: answering pokes the next question, which must wait its pause.
          this.calm();
          if (!controller.signal.aborted) this.board.queue.answer(question.key, answerOf(dialog, chosen));
          // Taken off the screen but not closed (the session went away): it waits again for the next one.
          else this.board.queue.reopen(question.key);
        },
        // A dialog pi could not show is cancelled for the child, as a plain pi would answer it.
        () => {
          this.calm();
          this.board.queue.answer(question.key, CANCELLED);
        },
      )
      .finally(() => {
        this.shown.delete(question.key);
        this.poke();
      });
  }

  /** Takes off the screen a shown question that left the queue without the person (refused with its task's). */
  private takeDownAnswered(): void {
    if (this.shown.size === 0) return;
    const waiting = new Set(this.board.queue.pending().map((question) => question.key));
    for (const [key, controller] of this.shown) {
      if (waiting.has(key) || controller.signal.aborted) continue;
      this.calm();
      controller.abort();
    }
  }

  /** A shown question is going away: the next one waits QUESTION_GAP_MS from now. */
  private calm(): void {
    this.calmUntil = Date.now() + this.timing.gapMs;
  }

  private stopPolling(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
  }
}

/** The person can be asked without losing keys: the main agent is idle and the editor is empty. */
function canAnswer(ctx: PresenterContext): boolean {
  try {
    return ctx.isIdle() && ctx.ui.getEditorText().trim() === "";
  } catch {
    // A stale context (pi replaced the session): the next one is asked.
    return false;
  }
}
