/**
 * The full-screen viewer of `/subagent-trace` in the TUI: the trace's lines (src/trace/trace-text.ts) in pi's
 * theme colours, scrollable, opened at the top. While any task of the delegation runs, the command re-reads the
 * disk about once a second and hands the view the new trace (`update`), so a running task's turns and tool calls
 * appear as they are written; the view keeps its scroll place.
 *
 *   Subagent trace · chain 01a24476-4aee-7358-97d3-ac842c74cf99
 *   ──────────────────────────────
 *   chain 01a2… · 3 subagents · 2.5 s · 6 turns/↑600/↓120/$0.0008
 *   1. worker 4152e710 · succeeded · …
 *   ──────────────────────────────
 *   1-24 of 31 · live · ↑↓/j/k scroll · PgUp/PgDn page · g/G top/end · q/Esc close
 */
import type { Theme } from "@mariozechner/pi-coding-agent";
import { Key, matchesKey, truncateToWidth, type Component } from "@mariozechner/pi-tui";
import { traceLines } from "../../trace/trace-text.ts";
import type { Trace } from "../../trace/trace.ts";
import { ScrollWindow } from "./views.ts";

const TRACE_VIEWER_KEYS = "↑↓/j/k scroll · PgUp/PgDn page · g/G top/end · q/Esc close";
const TRACE_LIVE_HINT = "live";

/** Lines the viewer itself takes: title, two rules, footer. */
const TRACE_CHROME_LINES = 4;

export interface TraceViewOptions {
  trace: Trace;
  theme: Pick<Theme, "fg" | "bold">;
  rows: () => number;
  now: () => number;
  onClose: () => void;
  requestRender?: () => void;
}

export class TraceView implements Component {
  private trace: Trace;
  private readonly scroll = new ScrollWindow(false);
  private closed = false;

  constructor(private readonly options: TraceViewOptions) {
    this.trace = options.trace;
  }

  /** Whether the delegation still runs (the command then keeps refreshing). */
  get live(): boolean {
    return this.trace.end === undefined;
  }

  update(trace: Trace): void {
    this.trace = trace;
    this.options.requestRender?.();
  }

  handleInput(data: string): void {
    if (this.closed) return;
    if (
      matchesKey(data, Key.escape) ||
      data === "q" ||
      matchesKey(data, Key.enter) ||
      matchesKey(data, Key.ctrl("c"))
    ) {
      this.closed = true;
      this.options.onClose();
      return;
    }
    if (this.scroll.handleKey(data)) this.options.requestRender?.();
  }

  render(width: number): string[] {
    const { theme } = this.options;
    const rows = Math.max(TRACE_CHROME_LINES + 1, this.options.rows());
    const fit = (text: string) => truncateToWidth(text, width);
    const rule = theme.fg("borderMuted", "─".repeat(Math.max(0, width)));
    const body = traceLines(this.trace, this.options.now(), theme).map((line) => fit(` ${line}`));
    const { start, end } = this.scroll.fit(body.length, rows - TRACE_CHROME_LINES);
    const subject = this.trace.kind === "task" ? "task" : this.trace.kind;
    const lines = [
      fit(theme.fg("accent", theme.bold(` Subagent trace · ${subject} ${this.trace.id}`))),
      rule,
      ...body.slice(start, end),
    ];
    while (lines.length < rows - 2) lines.push("");
    const position = `${start + 1}-${end} of ${body.length}`;
    const live = this.live ? ` · ${TRACE_LIVE_HINT}` : "";
    lines.push(rule, fit(theme.fg("dim", ` ${position}${live} · ${TRACE_VIEWER_KEYS}`)));
    return lines;
  }

  invalidate(): void {
    // Nothing cached: every render draws the current trace with the current theme.
  }
}
