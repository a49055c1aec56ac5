/**
 * A child's extension UI on our side: its requests and the answers pi expects, one run's bridge, the queue of questions, their labels and nested paths, and what is left unanswered.
 */
import { stripTerminalControls, oneLine } from "../shared/text.ts";
import type { StopCause } from "../shared/run-settings.ts";

/*
 * A child pi's extension UI requests (RPC `extension_ui_request` lines) and the answers it expects back (pure).
 * The shapes were read in both pis' `modes/rpc/rpc-mode.js` (0.73.1 and 1.6.0 alike): a dialog (`select`,
 * `confirm`, `input`, `editor`) waits for an `extension_ui_response` with its id carrying `value` (select, input,
 * editor), `confirmed` (confirm) or `cancelled: true` (any); `notify`, `setStatus`, `setWidget`, `setTitle` and
 * `set_editor_text` expect nothing.
 */
type DialogMethod = "select" | "confirm" | "input" | "editor";

/** A question a child asks: what its dialog shows. Every text is stripped of terminal control sequences. */
export interface ChildDialog {
  id: string;
  method: DialogMethod;
  title: string;
  /** confirm: the text under the title. */
  message?: string;
  /** select: the choices, as shown. */
  options?: string[];
  /** select: the choices as the child sent them, when stripping changed one (the answer names the child's own). */
  optionValues?: string[];
  /** input: the placeholder. */
  placeholder?: string;
  /** editor: the text it starts with. */
  prefill?: string;
}

/** A child's `notify`: shown to the person as a labelled notice. */
export interface ChildNotice {
  message: string;
  level: "info" | "warning" | "error";
}

export type ChildUiRequest =
  | { kind: "dialog"; dialog: ChildDialog }
  | { kind: "notice"; notice: ChildNotice }
  /** `setStatus`, `setWidget`, `setTitle`, `set_editor_text`: never applied to the main pi. */
  | { kind: "ignored"; method: string };

/** What goes back to a child's dialog. */
export type DialogAnswer = { cancelled: true } | { value: string } | { confirmed: boolean };

export const CANCELLED: DialogAnswer = { cancelled: true };

const DIALOG_METHODS: ReadonlySet<string> = new Set(["select", "confirm", "input", "editor"]);

/**
 * A text of the request, made inert: this is the one place a child's dialog and notice texts enter the package,
 * so no title, option, message or `editor` prefill can set the window title, clear the screen or write the
 * clipboard (OSC 52) when pi draws it. Line breaks and tabs stay.
 */
const text = (value: unknown): string | undefined =>
  typeof value === "string" ? stripTerminalControls(value) : undefined;

/** The request in a parsed `extension_ui_request` line, or undefined when the line is not one. */
export function parseUiRequest(line: Record<string, unknown>): ChildUiRequest | undefined {
  if (line.type !== "extension_ui_request" || typeof line.id !== "string" || typeof line.method !== "string")
    return undefined;
  const method = line.method;
  if (DIALOG_METHODS.has(method)) {
    const dialog: ChildDialog = { id: line.id, method: method as DialogMethod, title: text(line.title) ?? "" };
    if (method === "confirm") dialog.message = text(line.message) ?? "";
    if (method === "select") {
      const values = Array.isArray(line.options)
        ? line.options.filter((option): option is string => typeof option === "string")
        : [];
      dialog.options = values.map(stripTerminalControls);
      if (dialog.options.some((shown, index) => shown !== values[index])) dialog.optionValues = values;
    }
    if (method === "input" && text(line.placeholder) !== undefined) dialog.placeholder = text(line.placeholder);
    if (method === "editor" && text(line.prefill) !== undefined) dialog.prefill = text(line.prefill);
    return { kind: "dialog", dialog };
  }
  if (method === "notify") {
    const level = line.notifyType === "warning" || line.notifyType === "error" ? line.notifyType : "info";
    return { kind: "notice", notice: { message: text(line.message) ?? "", level } };
  }
  return { kind: "ignored", method };
}

/** The answer a dialog gets from what the person chose (undefined: Esc, which a plain pi also reads as cancelled). */
export function answerOf(
  dialog: Pick<ChildDialog, "method" | "options" | "optionValues">,
  chosen: string | boolean | undefined,
): DialogAnswer {
  if (chosen === undefined) return CANCELLED;
  if (dialog.method === "confirm") return { confirmed: chosen === true };
  if (typeof chosen !== "string") return CANCELLED;
  const index = dialog.optionValues ? (dialog.options ?? []).indexOf(chosen) : -1;
  return { value: index >= 0 ? (dialog.optionValues?.[index] ?? chosen) : chosen };
}

/*
 * How a child's question is named to the person (pure): who asks (`explore 3f9a2c7d asks:`, or the whole path of
 * a nested child, `reviewer 2c7d › explore 0d94 asks:`) and the question in one line (`Allow rm -rf build?`). The
 * id shown is its end, the short id of the widget and the cards, which the task commands accept.
 * Everything here comes from a child, so terminal control sequences are removed.
 */
/** One subagent on the way from the asking child up to the person. */
export interface Asker {
  agent: string;
  taskId: string;
}

/** A lone asker shows the last 8 characters of its id (its short id); in a path each shows 4, so the line stays short. */
const ASKER_ID_CHARS = 8;
const PATH_ID_CHARS = 4;
/** How long the one-line question may be in a widget row or a result line. */
const QUESTION_LINE_MAX = 100;

/** `explore 3f9a2c7d asks:`; `reviewer 2c7d › explore 0d94 asks:` for a path, outermost first. */
export function askerLabel(path: readonly Asker[]): string {
  const chars = path.length > 1 ? PATH_ID_CHARS : ASKER_ID_CHARS;
  const names = path.map((asker) => `${oneLine(asker.agent, 40)} ${oneLine(asker.taskId, 40).slice(-chars)}`);
  return `${names.join(" › ")} asks:`;
}

/** The question in one line: its title (and a confirm's message), whitespace folded, at most QUESTION_LINE_MAX. */
export function questionLine(dialog: Pick<ChildDialog, "title" | "message">, max = QUESTION_LINE_MAX): string {
  const whole = dialog.message ? `${dialog.title} ${dialog.message}` : dialog.title;
  return oneLine(whole, max) || "(a question without a title)";
}

/** The dialog's title as the person sees it: the asker's label above the child's own title. */
export function labelledTitle(path: readonly Asker[], title: string): string {
  return `${askerLabel(path)}\n${stripTerminalControls(title)}`;
}

/*
 * How a question travels up a tree of subagents (pure). A child that is itself a subagent (an RPC pi whose
 * extension is ours) forwards its own child's question to its parent as a dialog of its own; the dialog's title
 * then starts with one line naming the path so far, `⁣explore 01a3…(whole id) asks:`, behind an invisible mark
 * (U+2063) so that the parent can tell it from a title an extension wrote. The parent takes the path off and
 * labels the question with the whole path, `reviewer 01a2 › explore 01a3 asks:`. A client that is not ours
 * (an RPC client at the top) sees a readable first line.
 *
 * The hops are the parents' word, never the asking child's: a parent reads a path only from a child that may
 * itself have children, and only as many hops as the tree's depth limit leaves below that child. A child at the
 * limit (it has no children) that writes a path into its title gets its title shown as it wrote it, under the
 * label its parent built.
 */
const PATH_MARK = "\u2063";
const ASKS = " asks:";
const SEPARATOR = " › ";
/** An agent name has no spaces (safe names), a task id is a UUID. */
const ASKER = /^(\S+) ([0-9a-f-]{8,36})$/;

/** The title a forwarding child sends up: the path (outermost first) on its own first line, then the title. */
export function encodeNestedTitle(path: readonly Asker[], title: string): string {
  return `${PATH_MARK}${path.map((asker) => `${asker.agent} ${asker.taskId}`).join(SEPARATOR)}${ASKS}\n${title}`;
}

/**
 * The path a title carries (empty when it carries none) and the title without it. `maxHops`: how many hops the
 * child that sent it can truly have below it (the tree's depth limit minus its depth); a longer path is not one
 * its descendants could have built, so the title is kept whole.
 */
export function decodeNestedTitle(title: string, maxHops: number): { path: Asker[]; title: string } {
  if (maxHops < 1 || !title.startsWith(PATH_MARK)) return { path: [], title };
  const newline = title.indexOf("\n");
  const head = newline < 0 ? title.slice(1) : title.slice(1, newline);
  if (!head.endsWith(ASKS)) return { path: [], title };
  const path: Asker[] = [];
  for (const part of head.slice(0, -ASKS.length).split(SEPARATOR)) {
    const match = ASKER.exec(part);
    if (!match) return { path: [], title };
    path.push({ agent: match[1] ?? "", taskId: match[2] ?? "" });
  }
  if (path.length > maxHops) return { path: [], title };
  return { path, title: newline < 0 ? "" : title.slice(newline + 1) };
}

/** How many hops a child at `childDepth` can have below it in a tree limited to `maxDepth` (0 at the limit). */
export function nestedHopsBelow(childDepth: number, maxDepth: number): number {
  return Math.max(0, maxDepth - childDepth);
}

/*
 * The person's queue of subagent questions (pure): questions wait in arrival order and the person sees one at a
 * time. A question leaves the queue once, either answered (the answer goes back to the child that asked, Esc
 * being `cancelled`) or closed (its task stopped: cancel, timeout, budget, the child's exit, pi's shutdown), in
 * which case the child gets nothing more from here and the person is told it is gone.
 */
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
    const question: Question = {
      key: this.nextKey++,
      taskId,
      path: [...path],
      dialog,
      askedAt: (this.options.now ?? Date.now)(),
      opened: false,
    };
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

/*
 * One run's side of a child's extension UI (pure; the runner owns one per RPC child). A dialog goes to the route
 * the dispatch gave: to the person through a sink (the TUI), or nowhere, when it is answered `cancelled` at once
 * and noted for the result (`asked "…": no one to answer (print mode)`). A notice goes to the sink; the other
 * fire-and-forget requests (status, widget, title, editor text) are dropped: a child never changes the main
 * pi's own UI. While a question waits for the person the run counts as active (its activity timeout does not
 * run), and a stop closes every open question, answering the child `cancelled` so its turn can end.
 */
/** An open question as the sink holds it: closing it takes it off the person's screen and queue. */
export interface OpenQuestionHandle {
  close(why: CloseReason): void;
}

/** Where the person is: shows a dialog and calls `reply` once with the answer (Esc: cancelled). */
interface DialogSink {
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
const UNANSWERED_LINES_MAX = 10;

export class DialogBridge {
  private readonly route: DialogRoute;
  private readonly send: (response: DialogResponse) => void;
  private readonly onAnswered: () => void;
  private readonly open: Map<string, OpenQuestionHandle> = new Map();
  private readonly unansweredLines: string[] = [];
  private unansweredCount = 0;
  private ended = false;

  /** `onAnswered`: a question was answered or closed (the run's quiet time counts again from now). */
  constructor(
    route: DialogRoute | undefined,
    send: (response: DialogResponse) => void,
    onAnswered: () => void = () => {},
  ) {
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
    return more > 0
      ? [...this.unansweredLines, `… and ${more} more questions nobody could answer`]
      : [...this.unansweredLines];
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

/*
 * Why nobody could answer a child's question, and the line its result carries for each one (pure):
 * `asked "Allow rm -rf build?": no one to answer (print mode)`. The main agent and the person read it to know why
 * the child stopped or was refused.
 */
/** Where a child's dialogs go: to the person (a sink in the TUI), or nowhere, for a reason the result names. */
export type NobodyReason =
  | "print mode"
  | "JSON mode"
  | "RPC mode"
  | "$askPerson is false"
  | "too many questions waiting";

export function unansweredLine(dialog: Pick<ChildDialog, "title" | "message">, reason?: NobodyReason): string {
  return `asked "${questionLine(dialog)}": no one to answer${reason ? ` (${reason})` : ""}`;
}

/** Why nobody can answer in a pi that runs this way (the TUI has the person, so it has no reason). */
export function nobodyReasonOf(mode: "interactive" | "print" | "json" | "rpc"): NobodyReason | undefined {
  return mode === "print" ? "print mode" : mode === "json" ? "JSON mode" : mode === "rpc" ? "RPC mode" : undefined;
}
