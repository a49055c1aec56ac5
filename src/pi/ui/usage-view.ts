/**
 * The TUI view of /subagent-usage: the ledger's report between two rules, in pi's theme colours, closed with
 * Esc, q or Enter. The lines are the ones print mode writes to stdout (src/budget/ledger-text.ts).
 */
import type { Theme } from "@mariozechner/pi-coding-agent";
import { Key, matchesKey, truncateToWidth, type Component } from "@mariozechner/pi-tui";

export const USAGE_VIEW_KEYS = "Esc/q/Enter close";

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
      const styled = line.startsWith("- ") ? this.theme.fg("muted", line) : line.endsWith(":") ? this.theme.fg("accent", line) : line;
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
    if (matchesKey(data, Key.escape) || matchesKey(data, Key.enter) || data === "q" || matchesKey(data, Key.ctrl("c"))) this.onClose();
  }

  invalidate(): void {}
}
