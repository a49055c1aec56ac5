/**
 * The task picker of /subagent-cancel, /subagent-watch and /subagent-result when no id (or an ambiguous
 * prefix) is given: pi-tui's SelectList between two borders, a title and a key hint, shown in place of the
 * editor. ↑↓ move, Enter picks, Esc (or Ctrl+C) leaves. The rows are built by pure functions:
 *
 *   worker · running 01:23 · Refactor the auth middleware to use async/await.
 *   writer · succeeded · Update the README.
 */
import { DynamicBorder, type Theme } from "@mariozechner/pi-coding-agent";
import { Container, SelectList, Text, type Component, type SelectItem, type SelectListTheme } from "@mariozechner/pi-tui";
import { formatElapsed, oneLine } from "../../shared/format.ts";
import type { TaskSnapshot } from "../../tasks/registry.ts";
import type { TaskRecord } from "../../records/types.ts";
import { statusWithCause } from "../../commands/result-text.ts";

/** The part of pi's theme the picker uses (unit tests pass one that leaves text unchanged). */
export type PickerTheme = Pick<Theme, "fg" | "bold">;

const PICKER_TASK_PREVIEW_MAX = 200;
/** Rows shown at once; longer lists scroll (SelectList shows `(i/n)` under them). */
export const PICKER_VISIBLE_ROWS = 10;

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
  return tasks.map((task) => ({ value: task.taskId, label: task.agent ? `${task.taskId} · ${task.agent}` : task.taskId }));
}

export function selectListTheme(theme: PickerTheme): SelectListTheme {
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
