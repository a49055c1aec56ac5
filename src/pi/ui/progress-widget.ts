/**
 * The progress widget's component: a thin shell over `widgetLines` that reads the live tasks and the clock
 * each time pi draws it, so a redraw (a tick or a change) is all it takes to refresh it.
 */
import type { Component } from "@mariozechner/pi-tui";
import type { TaskSnapshot } from "../../tasks/registry.ts";
import { widgetLines, WIDGET_MAX_ROWS } from "./progress-rows.ts";
import type { Styler } from "../../shared/styler.ts";

export const WIDGET_KEY = "subagents";

export class ProgressWidget implements Component {
  constructor(
    private readonly tasks: () => readonly TaskSnapshot[],
    private readonly style: Styler,
    private readonly now: () => number = Date.now,
    private readonly maxRows = WIDGET_MAX_ROWS,
    private readonly question: () => string | undefined = () => undefined,
  ) {}

  render(width: number): string[] {
    const tasks = this.tasks();
    if (tasks.length === 0) return [];
    return widgetLines(tasks, this.now(), width, this.style, this.maxRows, this.question());
  }

  invalidate(): void {
    // Nothing cached: every render reads the tasks and the theme afresh.
  }
}
