/**
 * One run's side of a child's extension UI (pure; the runner owns one per RPC child). A dialog goes to the route
 * the dispatch gave: to the person through a sink (the TUI), or nowhere, when it is answered `cancelled` at once
 * and noted for the result (`asked "…": no one to answer (print mode)`). A notice goes to the sink; the other
 * fire-and-forget requests (status, widget, title, editor text) are dropped: a child never changes the main
 * pi's own UI. While a question waits for the person the run counts as active (its activity timeout does not
 * run), and a stop closes every open question, answering the child `cancelled` so its turn can end.
 */
import { CANCELLED } from "./child-ui-request.ts";
import type { ChildDialog, ChildNotice, ChildUiRequest, DialogAnswer } from "./child-ui-request.ts";
import type { CloseReason } from "./question-queue.ts";
import { unansweredLine } from "./unanswered.ts";
import type { NobodyReason } from "./unanswered.ts";

/** An open question as the sink holds it: closing it takes it off the person's screen and queue. */
export interface OpenQuestionHandle {
  close(why: CloseReason): void;
}

/** Where the person is: shows a dialog and calls `reply` once with the answer (Esc: cancelled). */
export interface DialogSink {
  /** Why a question is refused before it is shown (the child is answered cancelled, the result names it). */
  refuses?(dialog: ChildDialog): NobodyReason | undefined;
  ask(dialog: ChildDialog, reply: (answer: DialogAnswer) => void): OpenQuestionHandle;
  notice?(notice: ChildNotice): void;
}

/** Where a run's dialogs go. Absent in a RunSpec: nobody, for no reason the result could name. */
export type DialogRoute = { kind: "person"; sink: DialogSink } | { kind: "nobody"; reason?: NobodyReason };

/** An `extension_ui_response` to send to the child. */
export type DialogResponse = { type: "extension_ui_response"; id: string } & DialogAnswer;

/** At most this many "no one to answer" lines per result: a child asking in a loop must not swamp it. */
export const UNANSWERED_LINES_MAX = 10;

export class DialogBridge {
  private readonly route: DialogRoute;
  private readonly send: (response: DialogResponse) => void;
  private readonly onAnswered: () => void;
  private readonly open: Map<string, OpenQuestionHandle> = new Map();
  private readonly unansweredLines: string[] = [];
  private unansweredCount = 0;
  private ended = false;

  /** `onAnswered`: a question was answered or closed (the run's quiet time counts again from now). */
  constructor(route: DialogRoute | undefined, send: (response: DialogResponse) => void, onAnswered: () => void = () => {}) {
    this.route = route ?? { kind: "nobody" };
    this.send = send;
    this.onAnswered = onAnswered;
  }

  /** True while a question waits for the person. */
  get waiting(): boolean {
    return this.open.size > 0;
  }

  /** The result's lines for the questions nobody could answer (bounded; the last says how many more). */
  get unanswered(): string[] {
    const more = this.unansweredCount - this.unansweredLines.length;
    return more > 0 ? [...this.unansweredLines, `… and ${more} more questions nobody could answer`] : [...this.unansweredLines];
  }

  handle(request: ChildUiRequest): void {
    if (request.kind === "notice") {
      if (this.route.kind === "person" && !this.ended) this.route.sink.notice?.(request.notice);
      return;
    }
    if (request.kind !== "dialog") return;
    const dialog = request.dialog;
    if (this.route.kind === "nobody") {
      this.refuse(dialog, this.route.reason);
      return;
    }
    // Asked while its run is stopping: nobody will see it, and the stop already says why the run ended.
    if (this.ended) {
      this.send({ type: "extension_ui_response", id: dialog.id, ...CANCELLED });
      return;
    }
    if (this.open.has(dialog.id)) return;
    const refused = this.route.sink.refuses?.(dialog);
    if (refused) {
      this.refuse(dialog, refused);
      return;
    }
    let answered = false;
    const reply = (answer: DialogAnswer) => {
      if (answered || !this.open.has(dialog.id)) return;
      answered = true;
      this.open.delete(dialog.id);
      this.send({ type: "extension_ui_response", id: dialog.id, ...answer });
      this.onAnswered();
    };
    // Registered before the sink sees it, so an answer given at once (a sink that cannot show it) still counts.
    this.open.set(dialog.id, { close: () => {} });
    const handle = this.route.sink.ask(dialog, reply);
    if (this.open.has(dialog.id)) this.open.set(dialog.id, handle);
  }

  /**
   * The run is stopping (`answerChild`: its input is still open, so each open dialog is answered cancelled and
   * the child's turn can end) or is over; every open question is closed with `why`, and later ones are refused.
   */
  closeAll(why: CloseReason, answerChild: boolean): void {
    this.ended = true;
    const open = [...this.open.entries()];
    this.open.clear();
    for (const [id, handle] of open) {
      handle.close(why);
      if (answerChild) this.send({ type: "extension_ui_response", id, ...CANCELLED });
    }
    if (open.length > 0) this.onAnswered();
  }

  private refuse(dialog: ChildDialog, reason: NobodyReason | undefined): void {
    this.send({ type: "extension_ui_response", id: dialog.id, ...CANCELLED });
    this.unansweredCount += 1;
    if (this.unansweredLines.length < UNANSWERED_LINES_MAX) this.unansweredLines.push(unansweredLine(dialog, reason));
  }
}
