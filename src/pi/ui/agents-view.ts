/**
 * The TUI view of /subagent-agents: the lines print mode writes to stdout (src/commands/agents-text.ts),
 * full screen, scrollable and opened at the top, in pi's theme colours: each agent's name line in the accent
 * colour, its details plain, a cut tool or a first-use question in the warning colour, the file in dim, the two
 * closing sections muted. Keys as in the result viewer; Esc, q or Enter close it.
 */
import type { Theme } from "@mariozechner/pi-coding-agent";
import { Key, matchesKey, truncateToWidth, wrapTextWithAnsi, type Component } from "@mariozechner/pi-tui";
import { RESULT_VIEWER_KEYS, ScrollWindow } from "./result-viewer.ts";
import { LEFT_OUT_HEADING, SHADOWED_HEADING } from "../../commands/agents-text.ts";

/** Lines the view itself takes: title, two rules, footer. */
const CHROME_LINES = 4;

export interface AgentsViewOptions {
  /** The report's lines, the title first. */
  lines: readonly string[];
  theme: Pick<Theme, "fg" | "bold">;
  /** The terminal's height, read at every render (the view fills it). */
  rows: () => number;
  onClose: () => void;
  requestRender?: () => void;
}

export class AgentsView implements Component {
  private readonly scroll = new ScrollWindow(false);
  private closed = false;

  constructor(private readonly options: AgentsViewOptions) {}

  handleInput(data: string): void {
    if (this.closed) return;
    if (matchesKey(data, Key.escape) || matchesKey(data, Key.enter) || data === "q" || matchesKey(data, Key.ctrl("c"))) {
      this.closed = true;
      this.options.onClose();
      return;
    }
    if (this.scroll.handleKey(data)) this.options.requestRender?.();
  }

  /** How a report line is coloured: what kind of line it is shows in how it starts. */
  private colourOf(line: string, inSections: boolean): (text: string) => string {
    const { theme } = this.options;
    if (line === SHADOWED_HEADING || line === LEFT_OUT_HEADING) return (text) => theme.fg("accent", text);
    if (inSections) return (text) => theme.fg("muted", text);
    if (line.startsWith("  not granted:") || line.startsWith("  trust:") || line.startsWith("  note:")) return (text) => theme.fg("warning", text);
    if (line.startsWith("  file:")) return (text) => theme.fg("dim", text);
    if (line !== "" && !line.startsWith(" ")) return (text) => theme.fg("accent", theme.bold(text));
    return (text) => text;
  }

  render(width: number): string[] {
    const { theme } = this.options;
    const rows = Math.max(CHROME_LINES + 1, this.options.rows());
    const fit = (text: string) => truncateToWidth(text, width);
    const rule = theme.fg("borderMuted", "─".repeat(Math.max(0, width)));
    const [title = "", ...rest] = this.options.lines;
    let inSections = false;
    const body: string[] = [];
    for (const line of rest) {
      if (line === SHADOWED_HEADING || line === LEFT_OUT_HEADING) inSections = true;
      // Long lines (a path, a reason) wrap rather than lose their end, under their own indent.
      const indent = " ".repeat(1 + (/^ */.exec(line)?.[0].length ?? 0));
      const parts = wrapTextWithAnsi(this.colourOf(line, inSections)(line.trimStart()), Math.max(1, width - indent.length));
      body.push(...parts.map((part) => `${indent}${part}`));
    }
    const { start, end } = this.scroll.fit(body.length, rows - CHROME_LINES);
    const lines = [fit(theme.fg("accent", theme.bold(` ${title}`))), rule, ...body.slice(start, end).map(fit)];
    while (lines.length < rows - 2) lines.push("");
    lines.push(rule, fit(theme.fg("dim", ` ${start + 1}-${end} of ${body.length} · ${RESULT_VIEWER_KEYS}`)));
    return lines;
  }

  invalidate(): void {}
}
