/**
 * The full-screen views: the task picker, a result, `/subagent-watch` and `/subagent-usage`.
 */
import { DynamicBorder, type Theme, type ThemeColor } from "@mariozechner/pi-coding-agent";
import {
  Container,
  SelectList,
  Text,
  Key,
  Markdown,
  matchesKey,
  truncateToWidth,
  wrapTextWithAnsi,
  type Component,
  type SelectItem,
  type SelectListTheme,
  type MarkdownTheme,
  type OverlayOptions,
} from "@mariozechner/pi-tui";
import {
  formatElapsed,
  oneLine,
  stripTerminalControls,
  emptyUsage,
  formatUsage,
  type UsageTotals,
} from "../../shared/text.ts";
import type { TaskSnapshot } from "../../tasks/registry.ts";
import { messageBlock, shownOutput, type TaskRecord, type TaskMessage } from "../../records/record.ts";
import { statusWithCause, resultStatusLine, watchEnded } from "../../commands/task-commands.ts";
import { budgetUseText, type BudgetLimits } from "../../budget/limits.ts";
import type { ActivityLine, RunPhase } from "../../run/event-reducer.ts";

/*
 * The task picker of /subagent-cancel, /subagent-watch and /subagent-result when no id (or an ambiguous
 * prefix) is given: pi-tui's SelectList between two borders, a title and a key hint, shown in place of the
 * editor. ↑↓ move, Enter picks, Esc (or Ctrl+C) leaves. The rows are built by pure functions:
 *
 *   worker · running 01:23 · Refactor the auth middleware to use async/await.
 *   writer · succeeded · Update the README.
 */
/** The part of pi's theme the picker uses (unit tests pass one that leaves text unchanged). */
type PickerTheme = Pick<Theme, "fg" | "bold">;

const PICKER_TASK_PREVIEW_MAX = 200;
/** Rows shown at once; longer lists scroll (SelectList shows `(i/n)` under them). */
const PICKER_VISIBLE_ROWS = 10;

export const PICKER_HINT = "↑↓ move · Enter select · Esc close";
/** How often the rows of running tasks are rebuilt, so their clocks move as the widget's do. */
export const PICKER_REFRESH_MS = 1000;

/** One row per queued or running task: `agent · running MM:SS · task` (value: the task id). */
export function runningTaskItems(tasks: readonly TaskSnapshot[], now: number): SelectItem[] {
  return tasks.map((task) => {
    const status = task.cancelRequested
      ? "cancelling"
      : task.status === "queued"
        ? "queued"
        : `running ${formatElapsed(now - (task.startedAt ?? task.dispatchedAt))}`;
    return { value: task.taskId, label: `${task.agent} · ${status} · ${oneLine(task.task, PICKER_TASK_PREVIEW_MAX)}` };
  });
}

/** One row per finished task, in the order given (newest first): `agent · status · task`. */
export function finishedTaskItems(records: readonly TaskRecord[]): SelectItem[] {
  return records.map((record) => ({
    value: record.taskId,
    label: `${record.agent} · ${statusWithCause(record)} · ${oneLine(record.task, PICKER_TASK_PREVIEW_MAX)}`,
  }));
}

/** Rows for tasks known only by id and (maybe) agent, as after an ambiguous prefix. */
export function namedTaskItems(tasks: ReadonlyArray<{ taskId: string; agent?: string }>): SelectItem[] {
  return tasks.map((task) => ({
    value: task.taskId,
    label: task.agent ? `${task.taskId} · ${task.agent}` : task.taskId,
  }));
}

function selectListTheme(theme: PickerTheme): SelectListTheme {
  return {
    selectedPrefix: (text) => theme.fg("accent", text),
    selectedText: (text) => theme.fg("accent", text),
    description: (text) => theme.fg("muted", text),
    scrollInfo: (text) => theme.fg("dim", text),
    noMatch: (text) => theme.fg("warning", text),
  };
}

export interface TaskPickerOptions {
  title: string;
  items: SelectItem[];
  theme: PickerTheme;
  /** The row selected when the picker opens (a task id); the first row when absent or gone. */
  initialTaskId?: string;
  onPick: (taskId: string) => void;
  onCancel: () => void;
  /** Asks pi to draw again after a key changed the selection (or the rows were refreshed). */
  requestRender?: () => void;
  /**
   * The rows as they are now (running tasks, whose clocks move): each row keeps its place and takes its new
   * label about once a second while the picker is open. Rows no longer given keep their last label.
   */
  refreshItems?: () => SelectItem[];
}

export class TaskPicker implements Component {
  private readonly container = new Container();
  private readonly list: SelectList;
  private readonly titleText = new Text("", 1, 0);
  private readonly hintText = new Text("", 1, 0);
  private refreshTimer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: TaskPickerOptions) {
    const { theme, items } = options;
    this.list = new SelectList(items, Math.min(Math.max(items.length, 1), PICKER_VISIBLE_ROWS), selectListTheme(theme));
    const initial = options.initialTaskId ? items.findIndex((item) => item.value === options.initialTaskId) : -1;
    if (initial > 0) this.list.setSelectedIndex(initial);
    this.list.onSelect = (item) => {
      this.dispose();
      options.onPick(item.value);
    };
    this.list.onCancel = () => {
      this.dispose();
      options.onCancel();
    };
    if (options.refreshItems) {
      this.refreshTimer = setInterval(() => this.refresh(), PICKER_REFRESH_MS);
      // An open picker never keeps pi's process alive.
      this.refreshTimer.unref?.();
    }
    const border = () => new DynamicBorder((text: string) => theme.fg("accent", text));
    this.container.addChild(border());
    this.container.addChild(this.titleText);
    this.container.addChild(this.list);
    this.container.addChild(this.hintText);
    this.container.addChild(border());
    this.restyle();
  }

  /**
   * Gives each row its current label. SelectList keeps the item objects it was given and reads their labels at
   * each render, so the rows change in place and the selection stays where it is.
   */
  refresh(): void {
    const fresh = this.options.refreshItems?.();
    if (!fresh) return;
    for (const item of this.options.items) {
      const now = fresh.find((candidate) => candidate.value === item.value);
      if (now) item.label = now.label;
    }
    this.options.requestRender?.();
  }

  /** Stops the refresh (the picker closed, or pi took it down). */
  dispose(): void {
    if (this.refreshTimer !== undefined) clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  /** The task id of the selected row. */
  selectedTaskId(): string | undefined {
    return this.list.getSelectedItem()?.value;
  }

  handleInput(data: string): void {
    this.list.handleInput(data);
    this.options.requestRender?.();
  }

  render(width: number): string[] {
    return this.container.render(width);
  }

  invalidate(): void {
    this.restyle();
    this.container.invalidate();
  }

  /** Theme colours are baked into the two texts, so they are rebuilt when the theme changes. */
  private restyle(): void {
    const { theme } = this.options;
    this.titleText.setText(theme.fg("accent", theme.bold(this.options.title)));
    this.hintText.setText(theme.fg("dim", PICKER_HINT));
  }
}

/*
 * The full-screen viewer of /subagent-result: a title with the task id, a status line (agent, status,
 * duration, usage, model), the task in one line, then the whole output rendered as Markdown, scrollable,
 * opened at its end. Shown as an overlay that covers the screen; closing it shows pi as it was.
 *
 *   Subagent result · 01912345-6789-7abc-8def-0123456789ab
 *   worker · succeeded · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042 · fake/fake-model
 *   Task: Refactor the auth middleware to use async/await.
 *   ──────────────────────────────
 *   (output)
 *   ──────────────────────────────
 *   41-78 of 78 · ↑↓/j/k scroll · PgUp/PgDn page · g/G top/end · q/Esc close
 *
 * Keys: ↑/k and ↓/j one line, PgUp/PgDn (also Ctrl+B/Ctrl+F, Space) a page, g/Home the top, G/End the end,
 * Esc, q or Enter close.
 */
type ViewerTheme = Pick<Theme, "fg" | "bold">;

/** `ctx.ui.custom` options for a view that covers the whole screen (used by the result and watch views). */
export const FULL_SCREEN: { overlay: true; overlayOptions: OverlayOptions } = {
  overlay: true,
  overlayOptions: { anchor: "top-left", width: "100%", maxHeight: "100%" },
};

export const RESULT_VIEWER_KEYS = "↑↓/j/k scroll · PgUp/PgDn page · g/G top/end · q/Esc close";
/** The same keys for a viewer opened from a picker: Esc goes back to the list, q closes both. */
const RESULT_VIEWER_KEYS_FROM_LIST = "↑↓/j/k scroll · PgUp/PgDn page · g/G top/end · Esc back to the list · q close";

/**
 * How a viewer was left: `back` (Esc) returns to the picker it was opened from, `close` (q, Enter, Ctrl+C) goes
 * back to the editor, so what the person types next lands there, not in a list.
 */
export type ViewerExit = "back" | "close";

/** The exit a key asks for, or undefined for a key that does not leave. */
function viewerExitOf(data: string): ViewerExit | undefined {
  if (matchesKey(data, Key.escape)) return "back";
  if (data === "q" || matchesKey(data, Key.enter) || matchesKey(data, Key.ctrl("c"))) return "close";
  return undefined;
}

/** Lines the viewer itself takes: title, status, task, two rules, footer. */
const RESULT_CHROME_LINES = 6;

/**
 * Which slice of a long text is visible. It starts at the end and stays there while the person has not
 * scrolled away (so a viewer opened "at the end" still is after a resize); any move up unpins it, G pins it.
 */
export class ScrollWindow {
  /** The viewers' scroll keys (arrows, j/k, pages, g/G, Home/End); true when `data` was one of them. */
  handleKey(data: string): boolean {
    if (matchesKey(data, Key.up) || data === "k") this.scrollBy(-1);
    else if (matchesKey(data, Key.down) || data === "j") this.scrollBy(1);
    else if (matchesKey(data, Key.pageUp) || matchesKey(data, Key.ctrl("b"))) this.page(-1);
    else if (matchesKey(data, Key.pageDown) || matchesKey(data, Key.ctrl("f")) || data === " ") this.page(1);
    else if (matchesKey(data, Key.home) || data === "g") this.top();
    else if (matchesKey(data, Key.end) || data === "G") this.bottom();
    else return false;
    return true;
  }

  private offset = 0;
  private pinnedToEnd: boolean;
  private total = 0;
  private height = 1;

  constructor(startAtEnd = true) {
    this.pinnedToEnd = startAtEnd;
  }

  /** Fits the window to `total` lines shown `height` at a time; returns the visible range [start, end). */
  fit(total: number, height: number): { start: number; end: number } {
    this.total = Math.max(0, total);
    this.height = Math.max(1, height);
    const max = this.maxOffset();
    this.offset = this.pinnedToEnd ? max : Math.min(Math.max(0, this.offset), max);
    return { start: this.offset, end: Math.min(this.total, this.offset + this.height) };
  }

  scrollBy(lines: number): void {
    const max = this.maxOffset();
    this.offset = Math.min(Math.max(0, this.offset + lines), max);
    this.pinnedToEnd = this.offset >= max;
  }

  page(direction: 1 | -1): void {
    this.scrollBy(direction * Math.max(1, this.height - 1));
  }

  top(): void {
    this.offset = 0;
    this.pinnedToEnd = this.maxOffset() === 0;
  }

  bottom(): void {
    this.pinnedToEnd = true;
    this.offset = this.maxOffset();
  }

  private maxOffset(): number {
    return Math.max(0, this.total - this.height);
  }
}

export interface ResultViewerOptions {
  record: TaskRecord;
  theme: ViewerTheme;
  markdownTheme: MarkdownTheme;
  /** The terminal's height, read at every render (the viewer fills it). */
  rows: () => number;
  onClose: (exit: ViewerExit) => void;
  requestRender?: () => void;
  /** Opened from a picker: the key hint says Esc goes back to it. */
  fromList?: boolean;
}

export class ResultViewer implements Component {
  private readonly body: Markdown;
  private readonly scroll = new ScrollWindow(true);
  private closed = false;

  constructor(private readonly options: ResultViewerOptions) {
    const messages = messageBlock(options.record.messages);
    const text = stripTerminalControls(shownOutput(options.record));
    this.body = new Markdown(
      messages.length > 0 ? `${text}\n\n---\n\n${stripTerminalControls(messages.join("\n"))}` : text,
      1,
      0,
      options.markdownTheme,
    );
  }

  handleInput(data: string): void {
    if (this.closed) return;
    const exit = viewerExitOf(data);
    if (exit) {
      this.closed = true;
      this.options.onClose(exit);
      return;
    }
    if (this.scroll.handleKey(data)) this.options.requestRender?.();
  }

  render(width: number): string[] {
    const { theme, record } = this.options;
    const rows = Math.max(RESULT_CHROME_LINES + 1, this.options.rows());
    const fit = (text: string) => truncateToWidth(text, width);
    const rule = theme.fg("borderMuted", "─".repeat(Math.max(0, width)));
    const bodyLines = this.body.render(width);
    const bodyHeight = rows - RESULT_CHROME_LINES;
    const { start, end } = this.scroll.fit(bodyLines.length, bodyHeight);
    const lines = [
      fit(theme.fg("accent", theme.bold(` Subagent result · ${record.taskId}`))),
      fit(` ${theme.fg(toneOf(record), resultStatusLine(record))}`),
      fit(theme.fg("muted", ` Task: ${oneLine(record.task, 4 * width)}`)),
      rule,
      ...bodyLines.slice(start, end),
    ];
    while (lines.length < rows - 2) lines.push("");
    const position = bodyLines.length === 0 ? "empty" : `${start + 1}-${end} of ${bodyLines.length}`;
    lines.push(
      rule,
      fit(
        theme.fg("dim", ` ${position} · ${this.options.fromList ? RESULT_VIEWER_KEYS_FROM_LIST : RESULT_VIEWER_KEYS}`),
      ),
    );
    return lines;
  }

  invalidate(): void {
    this.body.invalidate();
  }
}

function toneOf(record: TaskRecord): "success" | "error" | "warning" {
  if (record.status === "succeeded") return "success";
  return record.status === "cancelled" ? "warning" : "error";
}

/*
 * The live view of /subagent-watch: one running task's tool calls and streamed text as they happen, redrawn
 * from a copy of its run state taken about once a second (the caller's timer), so drawing costs the same
 * however fast the child streams. When the task ends the view stops changing and pins a line pointing to
 * /subagent-result. Everything shown is bounded: the run state keeps the last 4 KB of text and 50 activity
 * lines, and the view shows what fits the screen.
 *
 *   Watching subagent · 01912345-6789-7abc-8def-0123456789ab
 *   worker · running · tool bash · 01:23 · 2 turns/↑1.2k/↓300/$0.0012
 *   Task: Refactor the auth middleware to use async/await.
 *   ── Activity ───────────────────
 *    +00:02 ▸ read: src/auth.ts
 *    +00:05 ▸ bash: npm test
 *   ── Streamed text ──────────────
 *    (the last lines the subagent wrote)
 *   ── q/Esc close ────────────────
 *   live · refreshed every second
 */
type WatchTheme = Pick<Theme, "fg" | "bold">;

/** How often the caller refreshes the frame while the task runs. */
export const WATCH_REFRESH_MS = 1000;

export const WATCH_LIVE_HINT = "live · refreshed every second";
const WATCH_CLOSE_HINT = "q/Esc close";
/** Opened from the picker: Esc goes back to it, q closes both. */
const WATCH_CLOSE_HINT_FROM_LIST = "Esc back to the list · q close";

/** Lines the view itself takes: title, status, task, three rules, footer. */
const WATCH_CHROME_LINES = 7;

/** A copy of what the view shows of a running task, taken at one moment. */
export interface WatchFrame {
  taskId: string;
  agent: string;
  task: string;
  status: "queued" | "running";
  cancelling: boolean;
  phase?: RunPhase;
  currentTool?: string;
  dispatchedAt: number;
  startedAt?: number;
  usage?: UsageTotals;
  /** The task's budget limits, if any: the status line shows use against them. */
  budget?: BudgetLimits;
  /** The sandbox the child runs in (the status line names it). */
  sandbox?: TaskSnapshot["sandbox"];
  streamTail: string;
  activity: ActivityLine[];
  /** When the copy was taken (the elapsed time shown is up to here). */
  capturedAt: number;
  /** A question of the task waiting for the person (`explore 01a2b3c4 asks: …`). */
  question?: string;
}

export function frameOf(task: TaskSnapshot, now: number): WatchFrame {
  const state = task.state;
  return {
    taskId: task.taskId,
    agent: task.agent,
    task: task.task,
    status: task.status,
    cancelling: task.cancelRequested !== undefined,
    phase: state?.phase,
    currentTool: state?.currentTool?.name,
    dispatchedAt: task.dispatchedAt,
    startedAt: task.startedAt,
    usage: state ? { ...state.usage } : undefined,
    budget: task.budget,
    sandbox: task.sandbox,
    streamTail: state?.streamTail ?? "",
    activity: withMessages(state ? state.activity.map((line) => ({ ...line })) : [], task.messages ?? []),
    capturedAt: now,
    question: task.question,
  };
}

/** The run's activity with the messages sent to it, in time order (what the watcher sees it was told). */
function withMessages(activity: ActivityLine[], messages: readonly TaskMessage[]): ActivityLine[] {
  if (messages.length === 0) return activity;
  const sent: ActivityLine[] = messages.map((message) => ({
    at: message.at,
    kind: "message",
    text: `message from ${message.from === "agent" ? "the main agent" : "the user"}: ${message.text}`,
  }));
  return [...activity, ...sent].sort((a, b) => a.at - b.at);
}

/** `worker · running · tool bash · 01:23 · 2 turns/↑1.2k/↓300/$0.0012` */
export function watchStatusLine(frame: WatchFrame): string {
  const parts = [frame.agent];
  if (frame.cancelling) parts.push("cancelling");
  else if (frame.status === "queued") parts.push("queued");
  else parts.push("running", frame.currentTool ? `tool ${frame.currentTool}` : (frame.phase ?? "starting"));
  parts.push(formatElapsed(frame.capturedAt - (frame.startedAt ?? frame.dispatchedAt)));
  if (frame.usage) parts.push(formatUsage(frame.usage));
  const budgetUse = budgetUseText(frame.budget, frame.usage ?? emptyUsage());
  if (budgetUse) parts.push(`budget ${budgetUse}`);
  if (frame.sandbox) parts.push(`sandbox: ${frame.sandbox}`);
  return parts.join(" · ");
}

const ACTIVITY_MARK: Record<ActivityLine["kind"], string> = {
  tool: "▸",
  text: "✎",
  "tool-result": "✗",
  error: "✗",
  retry: "↻",
  message: "✉",
};

/** ` +00:05 ▸ bash: npm test` (time since the run started). */
export function activityText(line: ActivityLine, startedAt: number): string {
  return `+${formatElapsed(line.at - startedAt)} ${ACTIVITY_MARK[line.kind]} ${oneLine(line.text, 300)}`;
}

/** Streamed text as plain lines: terminal control sequences a model might emit are dropped, tabs spaced. */
export function plainStreamText(text: string): string {
  return stripTerminalControls(text).replace(/\t/g, "  ");
}

export interface WatchViewOptions {
  frame: WatchFrame;
  theme: WatchTheme;
  /** The terminal's height, read at every render (the view fills it). */
  rows: () => number;
  onClose: (exit: ViewerExit) => void;
  /** Opened from the picker: the hint says Esc goes back to it. */
  fromList?: boolean;
}

export class WatchView implements Component {
  private frame: WatchFrame;
  private endLine: string | undefined;
  private closed = false;

  constructor(private readonly options: WatchViewOptions) {
    this.frame = options.frame;
  }

  /** A newer copy of the running task (ignored once the task ended). */
  update(frame: WatchFrame): void {
    if (this.endLine === undefined) this.frame = frame;
  }

  /** The task ended: the view freezes and pins the line pointing to its result. */
  end(status: string | undefined): void {
    if (this.endLine === undefined) this.endLine = watchEnded(this.frame.taskId, status);
  }

  get ended(): boolean {
    return this.endLine !== undefined;
  }

  handleInput(data: string): void {
    if (this.closed) return;
    const exit = viewerExitOf(data);
    if (exit) {
      this.closed = true;
      this.options.onClose(exit);
    }
  }

  render(width: number): string[] {
    const { theme } = this.options;
    const frame = this.frame;
    const rows = Math.max(WATCH_CHROME_LINES + 2, this.options.rows());
    const fit = (text: string) => truncateToWidth(text, width);
    const rule = (label?: string) => {
      const text = label ? `── ${label} ` : "";
      return theme.fg("borderMuted", fit(text + "─".repeat(Math.max(0, width - text.length))));
    };
    const room = rows - WATCH_CHROME_LINES - (frame.question ? 1 : 0);

    const startedAt = frame.startedAt ?? frame.dispatchedAt;
    const activity = frame.activity.filter((line) => line.kind !== "text");
    const activityRoom = Math.max(1, Math.min(Math.max(activity.length, 1), Math.floor(room * 0.4)));
    const activityLines =
      activity.length === 0
        ? [theme.fg("dim", fit(frame.status === "queued" ? " (queued: not started yet)" : " (no tool calls yet)"))]
        : activity
            .slice(-activityRoom)
            .map((line) => fit(` ${theme.fg(activityColor(line), activityText(line, startedAt))}`));

    const streamRoom = room - activityLines.length;
    const wrapped =
      frame.streamTail.trim() === ""
        ? []
        : wrapTextWithAnsi(plainStreamText(frame.streamTail).trimEnd(), Math.max(1, width - 1));
    const streamLines =
      wrapped.length === 0
        ? [theme.fg("dim", fit(" (no text yet)"))]
        : wrapped.slice(-streamRoom).map((line) => fit(` ${line}`));

    const lines = [
      fit(theme.fg("accent", theme.bold(` Watching subagent · ${frame.taskId}`))),
      fit(` ${watchStatusLine(frame)}`),
      fit(theme.fg("muted", ` Task: ${oneLine(frame.task, 4 * width)}`)),
      // A question waiting for the person is why the task is quiet: it comes before the activity.
      ...(frame.question
        ? [fit(theme.fg("warning", ` ? ${stripTerminalControls(frame.question)} · /subagent-answer`))]
        : []),
      rule("Activity"),
      ...activityLines,
      rule("Streamed text"),
      ...streamLines,
    ];
    while (lines.length < rows - 2) lines.push("");
    // The last line is the live hint, or once the task ended the pinned pointer to its result.
    const footer =
      this.endLine === undefined
        ? theme.fg("dim", ` ${WATCH_LIVE_HINT}`)
        : theme.fg("accent", theme.bold(` ${this.endLine}`));
    lines.push(rule(this.options.fromList ? WATCH_CLOSE_HINT_FROM_LIST : WATCH_CLOSE_HINT), fit(footer));
    return lines;
  }

  invalidate(): void {
    // Nothing cached: every render reads the current frame and theme.
  }
}

function activityColor(line: ActivityLine): ThemeColor {
  if (line.kind === "error" || line.kind === "tool-result") return "error";
  if (line.kind === "message") return "accent";
  return line.kind === "retry" ? "warning" : "text";
}

/*
 * The TUI view of /subagent-usage: the ledger's report between two rules, in pi's theme colours, closed with
 * Esc, q or Enter. The lines are the ones print mode writes to stdout (src/budget/usage.ts).
 */
const USAGE_VIEW_KEYS = "Esc/q/Enter close";

export class UsageView implements Component {
  constructor(
    private readonly lines: readonly string[],
    private readonly theme: Pick<Theme, "fg" | "bold">,
    private readonly onClose: () => void,
  ) {}

  render(width: number): string[] {
    const rule = this.theme.fg("borderMuted", "─".repeat(Math.max(1, width)));
    const [title, ...rest] = this.lines;
    const body = rest.map((line) => {
      const styled = line.startsWith("- ")
        ? this.theme.fg("muted", line)
        : line.endsWith(":")
          ? this.theme.fg("accent", line)
          : line;
      return truncateToWidth(styled, width, "…");
    });
    return [
      rule,
      truncateToWidth(this.theme.fg("accent", this.theme.bold(title ?? "")), width, "…"),
      ...body,
      truncateToWidth(this.theme.fg("dim", USAGE_VIEW_KEYS), width, "…"),
      rule,
    ];
  }

  handleInput(data: string): void {
    if (matchesKey(data, Key.escape) || matchesKey(data, Key.enter) || data === "q" || matchesKey(data, Key.ctrl("c")))
      this.onClose();
  }

  invalidate(): void {}
}
