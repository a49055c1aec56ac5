/**
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
import { stripTerminalControls } from "../../shared/terminal-text.ts";
import type { Theme } from "@mariozechner/pi-coding-agent";
import { Key, Markdown, matchesKey, truncateToWidth, type Component, type MarkdownTheme, type OverlayOptions } from "@mariozechner/pi-tui";
import { oneLine } from "../../shared/format.ts";
import type { TaskRecord } from "../../records/types.ts";
import { resultStatusLine } from "../../commands/result-text.ts";
import { messageBlock, shownOutput } from "../../records/record-output.ts";

export type ViewerTheme = Pick<Theme, "fg" | "bold">;

/** `ctx.ui.custom` options for a view that covers the whole screen (used by the result and watch views). */
export const FULL_SCREEN: { overlay: true; overlayOptions: OverlayOptions } = {
  overlay: true,
  overlayOptions: { anchor: "top-left", width: "100%", maxHeight: "100%" },
};

export const RESULT_VIEWER_KEYS = "↑↓/j/k scroll · PgUp/PgDn page · g/G top/end · q/Esc close";
/** The same keys for a viewer opened from a picker: Esc goes back to the list, q closes both. */
export const RESULT_VIEWER_KEYS_FROM_LIST = "↑↓/j/k scroll · PgUp/PgDn page · g/G top/end · Esc back to the list · q close";

/**
 * How a viewer was left: `back` (Esc) returns to the picker it was opened from, `close` (q, Enter, Ctrl+C) goes
 * back to the editor, so what the person types next lands there, not in a list.
 */
export type ViewerExit = "back" | "close";

/** The exit a key asks for, or undefined for a key that does not leave. */
export function viewerExitOf(data: string): ViewerExit | undefined {
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
    this.body = new Markdown(messages.length > 0 ? `${text}\n\n---\n\n${stripTerminalControls(messages.join("\n"))}` : text, 1, 0, options.markdownTheme);
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
    lines.push(rule, fit(theme.fg("dim", ` ${position} · ${this.options.fromList ? RESULT_VIEWER_KEYS_FROM_LIST : RESULT_VIEWER_KEYS}`)));
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
