/**
 * The progress widget and footer: the rows, the widget, the controller that keeps them live, and the UI's registration.
 */
import { RESULT_CUSTOM_TYPE, type Counts } from "../../tasks/background-tasks.ts";
import { stripTerminalControls, formatElapsed, shortTaskId, shortTaskIds, type Styler } from "../../shared/text.ts";
import { truncateToWidth, visibleWidth, type Component } from "@mariozechner/pi-tui";
import { budgetUseText } from "../../budget/limits.ts";
import { phaseLabel } from "../../run/event-reducer.ts";
import type { TaskSnapshot } from "../../tasks/registry.ts";
import type { ExtensionUIContext, ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { detectAppMode } from "../../shared/pi-process.ts";
import type { BackgroundHandle } from "../runtime.ts";
import type { SubagentToolRenderers } from "../tool/execute.ts";
import { renderResultCard, renderSubagentCall, renderSubagentResult } from "./cards.ts";

/*
 * The footer segment that says how many background subagents run and how many ended in this pi instance:
 * `⚙ 2 running · 3 done`. Shown once any task exists; gone while there has been none.
 */
export const STATUS_KEY = "subagents";

/**
 * `⚙ 2 running · 1 queued · 3 done` (queued only when something waits), or undefined when there is no task at all.
 */
export function statusText(counts: Counts): string | undefined {
  if (counts.running + counts.queued + counts.done === 0) return undefined;
  const parts = [`${counts.running} running`];
  if (counts.queued > 0) parts.push(`${counts.queued} queued`);
  parts.push(`${counts.done} done`);
  return `⚙ ${parts.join(" · ")}`;
}

/** Accent while something runs or waits, dim once everything has ended. */
export function styledStatus(counts: Counts, style: Styler): string | undefined {
  const text = statusText(counts);
  if (text === undefined) return undefined;
  return style.fg(counts.running + counts.queued > 0 ? "accent" : "dim", text);
}

/*
 * What the progress widget shows, as lines that fit a given terminal width: a titled rule with the counts,
 * then one row per task in flight (dispatch order), oldest hidden behind a `+N more` line past the height
 * budget. Pure: the caller passes the tasks, the clock and the colours.
 *
 *   ── Subagents · 2 running · 1 queued ─────────────────────────────
 *    ● 01912345-6789  coder   ⚡ bash: npm test                     01:23
 *    ● 01912345-a0b1  writer  thinking · last tool read: README.md  00:41
 *    ○ 01912346-0c2d  coder   queued (#1 in line)                   00:05
 */
/** Rows for tasks (the `+N more` line included) below the title. */
export const WIDGET_MAX_ROWS = 6;
const AGENT_COLUMN_MAX = 20;
/** Below this many columns for the activity, the row is no longer laid out in columns. */
const ACTIVITY_MIN = 10;
const RULE = "─";

/** `Subagents · 2 running · 1 queued` (the queued part only when something waits). */
export function widgetTitle(counts: { running: number; queued: number }): string {
  const parts = [`${counts.running} running`];
  if (counts.queued > 0) parts.push(`${counts.queued} queued`);
  return `Subagents · ${parts.join(" · ")}`;
}

/** What a task is doing, in words: its phase, the latest tool when it is not running one, or its queue place. */
export function taskActivity(task: TaskSnapshot, queuePosition: number): string {
  if (task.cancelRequested) return "cancelling…";
  if (task.status === "queued") return `queued (#${queuePosition} in line)`;
  const state = task.state;
  if (!state) return "starting";
  // Use against the budget comes first, so a narrow row cuts the tool text rather than the budget.
  const budgetUse = budgetUseText(task.budget, state.usage);
  const label = budgetUse ? `${budgetUse} · ${phaseLabel(state)}` : phaseLabel(state);
  const last = state.lastTool;
  if (state.phase === "tool" || !last) return label;
  return `${label} · last tool ${last.summary ? `${last.name}: ${last.summary}` : last.name}`;
}

interface TaskRow {
  kind: "task";
  status: "running" | "queued";
  cancelling: boolean;
  taskId: string;
  shortId: string;
  agent: string;
  activity: string;
  /** Time since dispatch, `MM:SS`. */
  elapsed: string;
}

interface MoreRow {
  kind: "more";
  hidden: number;
}

/** The line above a batch's or chain's rows: `batch 01912345 · 3 parts`, `chain 01912345 · step 2 of 3`. */
interface GroupRow {
  kind: "group";
  label: string;
}

export type WidgetRow = TaskRow | MoreRow | GroupRow;

/** The group line's words for a workflow part. */
function groupLabel(workflow: NonNullable<TaskSnapshot["workflow"]>): string {
  const id = shortTaskId(workflow.id);
  return workflow.kind === "batch"
    ? `batch ${id} · ${workflow.total} parts`
    : `chain ${id} · step ${workflow.index} of ${workflow.total}`;
}

/** A group line above each run of rows of one workflow (a batch's parts are dispatched one after another). */
function withGroupRows(tasks: readonly TaskSnapshot[], rows: readonly TaskRow[]): WidgetRow[] {
  const grouped: WidgetRow[] = [];
  rows.forEach((row, index) => {
    const workflow = tasks[index]?.workflow;
    if (workflow && tasks[index - 1]?.workflow?.id !== workflow.id)
      grouped.push({ kind: "group", label: groupLabel(workflow) });
    grouped.push(row);
  });
  return grouped;
}

/**
 * The rows under the title: every task when they fit in `maxRows`, otherwise a `+N more` line for the oldest
 * and the newest `maxRows - 1` tasks.
 */
export function widgetRows(tasks: readonly TaskSnapshot[], now: number, maxRows = WIDGET_MAX_ROWS): WidgetRow[] {
  let queued = 0;
  const shortIds = shortTaskIds(tasks.map((task) => task.taskId));
  const rows: TaskRow[] = tasks.map((task, index) => {
    if (task.status === "queued") queued += 1;
    return {
      kind: "task",
      status: task.status,
      cancelling: Boolean(task.cancelRequested),
      taskId: task.taskId,
      shortId: shortIds[index] ?? shortTaskId(task.taskId),
      // A workflow's part is named by its place in it.
      agent: task.workflow ? `${task.workflow.index}. ${task.agent}` : task.agent,
      // The latest tool's name and arguments are model-written.
      activity: stripTerminalControls(taskActivity(task, queued)),
      elapsed: formatElapsed(now - task.dispatchedAt),
    };
  });
  const budget = Math.max(1, maxRows);
  const all = withGroupRows(tasks, rows);
  if (all.length <= budget) return all;
  const shown = Math.max(0, budget - 1);
  const kept = all.slice(all.length - shown);
  const hidden = rows.length - kept.filter((row) => row.kind === "task").length;
  return [{ kind: "more", hidden }, ...kept];
}

/** `── Subagents · 2 running ────…` filling the width. */
function titleLine(title: string, width: number, style: Styler): string {
  const lead = `${RULE}${RULE} `;
  const plain = `${lead}${title} `;
  if (visibleWidth(plain) >= width) return style.fg("accent", truncateToWidth(plain, width, "…"));
  const fill = RULE.repeat(width - visibleWidth(plain));
  const [name, ...rest] = title.split(" · ");
  const counts = rest.length > 0 ? ` · ${rest.join(" · ")}` : "";
  return (
    style.fg("borderMuted", lead) +
    style.fg("accent", style.bold(name ?? "")) +
    style.fg("muted", `${counts} `) +
    style.fg("borderMuted", fill)
  );
}

function padTo(text: string, width: number): string {
  const fitted = truncateToWidth(text, width, "…");
  return fitted + " ".repeat(Math.max(0, width - visibleWidth(fitted)));
}

/** Lays the task rows out in columns (id, agent, activity, clock), all within `width`. */
function rowLines(rows: readonly WidgetRow[], width: number, style: Styler): string[] {
  const tasks = rows.filter((row): row is TaskRow => row.kind === "task");
  const idWidth = Math.max(0, ...tasks.map((row) => row.shortId.length));
  const agentWidth = Math.min(AGENT_COLUMN_MAX, Math.max(0, ...tasks.map((row) => visibleWidth(row.agent))));
  const clockWidth = Math.max(0, ...tasks.map((row) => row.elapsed.length));
  // " ● 01912345-abcd  agent  " before the activity, "  01:23" after it.
  const fixed = 3 + idWidth + 2 + agentWidth + 2 + 2 + clockWidth;
  const room = width - fixed;
  const activityWidth = Math.min(room, Math.max(0, ...tasks.map((row) => visibleWidth(row.activity))));
  return rows.map((row) => {
    if (row.kind === "more") return truncateToWidth(` ${style.fg("muted", `+${row.hidden} more`)}`, width, "…");
    if (row.kind === "group") return truncateToWidth(` ${style.fg("muted", `┌ ${row.label}`)}`, width, "…");
    const icon = row.status === "running" ? style.fg("accent", "●") : style.fg("dim", "○");
    const activityColour = row.cancelling ? "warning" : row.status === "queued" ? "dim" : "muted";
    if (room < ACTIVITY_MIN) {
      const plain = `${row.shortId} ${row.agent} ${row.elapsed} ${row.activity}`;
      return truncateToWidth(` ${icon} ${style.fg("muted", plain)}`, width, "…");
    }
    return (
      ` ${icon} ${style.fg("dim", row.shortId.padEnd(idWidth))}  ${style.fg("accent", padTo(row.agent, agentWidth))}  ` +
      `${style.fg(activityColour, padTo(row.activity, activityWidth))}  ${style.fg("dim", row.elapsed.padStart(clockWidth))}`
    );
  });
}

/** The whole widget: the title rule, then the rows. */
export function widgetLines(
  tasks: readonly TaskSnapshot[],
  now: number,
  width: number,
  style: Styler,
  maxRows = WIDGET_MAX_ROWS,
  question?: string,
): string[] {
  const running = tasks.filter((task) => task.status === "running").length;
  const title = titleLine(widgetTitle({ running, queued: tasks.length - running }), width, style);
  // A question waiting for the person comes right under the title, so it is seen before the rows.
  const asking = question
    ? [truncateToWidth(` ${style.fg("warning", stripTerminalControls(question))}`, width, "…")]
    : [];
  return [title, ...asking, ...rowLines(widgetRows(tasks, now, maxRows), width, style)];
}

/*
 * The progress widget's component: a thin shell over `widgetLines` that reads the live tasks and the clock
 * each time pi draws it, so a redraw (a tick or a change) is all it takes to refresh it.
 */
export const WIDGET_KEY = "subagents";

class ProgressWidget implements Component {
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

/*
 * Keeps the progress widget and the footer segment in step with the background tasks.
 *
 * - The widget is set once when the first task appears and removed (setWidget undefined) when none is left;
 *   in between it is only redrawn.
 * - One shared 1 s timer redraws it (the elapsed clocks) and runs only while tasks are in flight; it is
 *   unref'd so it never keeps pi alive.
 * - A task added, started or ended shows at once; a child's progress redraws at most every `throttleMs`, so a
 *   chatty child does not redraw the screen for every event it prints.
 * - Without a UI (print/JSON mode, before `session_start`, after `session_shutdown`) nothing is drawn.
 */
/** What the controller reads from the background tasks. */
export interface TaskSource {
  snapshot(): TaskSnapshot[];
  counts(): Counts;
  onChange(listener: () => void): () => void;
  /** A subagent question waiting for the person, as the widget's line. */
  waitingQuestion?(): string | undefined;
}

/** The part of pi's UI it uses. */
export type ProgressUi = Pick<ExtensionUIContext, "setWidget" | "setStatus" | "theme">;

export interface ProgressControllerOptions {
  tickMs?: number;
  throttleMs?: number;
  now?: () => number;
}

const TICK_MS = 1000;
const THROTTLE_MS = 250;

export class ProgressController {
  private readonly tickMs: number;
  private readonly throttleMs: number;
  private readonly now: () => number;
  private unsubscribe: (() => void) | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private pending: NodeJS.Timeout | undefined;
  private lastRefreshAt = Number.NEGATIVE_INFINITY;
  private lastCounts = "";
  /** The UI the widget is currently set on, and the redraw hook pi gave its component. */
  private shownOn: ProgressUi | undefined;
  private requestRender: (() => void) | undefined;
  private statusOn: ProgressUi | undefined;
  private lastStatus: string | undefined;

  constructor(
    private readonly source: TaskSource,
    private readonly ui: () => ProgressUi | undefined,
    options: ProgressControllerOptions = {},
  ) {
    this.tickMs = options.tickMs ?? TICK_MS;
    this.throttleMs = options.throttleMs ?? THROTTLE_MS;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    this.unsubscribe ??= this.source.onChange(() => this.scheduleRefresh());
    this.refresh();
  }

  /** Whether the 1 s timer is running (for tests and diagnostics). */
  get ticking(): boolean {
    return this.ticker !== undefined;
  }

  private scheduleRefresh(): void {
    // A task added, started or ended shows at once; only progress within the same counts is throttled.
    if (countsKey(this.source.counts()) !== this.lastCounts) {
      this.refresh();
      return;
    }
    if (this.pending) return;
    const wait = this.lastRefreshAt + this.throttleMs - this.now();
    if (wait <= 0) {
      this.refresh();
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.refresh();
    }, wait);
    this.pending.unref();
  }

  /** Brings the widget, the status segment and the timer in line with the tasks now. */
  refresh(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    this.lastRefreshAt = this.now();
    const ui = this.ui();
    const counts = this.source.counts();
    this.lastCounts = countsKey(counts);
    const inFlight = counts.running + counts.queued > 0;
    if (!ui) {
      this.forgetUi();
      return;
    }
    if (inFlight) {
      if (this.shownOn !== ui) this.showWidget(ui);
      else this.requestRender?.();
      this.startTicker();
    } else {
      this.hideWidget();
      this.stopTicker();
    }
    this.updateStatus(ui, counts);
  }

  /** Clears what is on screen and forgets the UI (the session is going away); tasks are still followed. */
  detach(): void {
    this.hideWidget();
    if (this.statusOn && this.lastStatus !== undefined) safely(() => this.statusOn?.setStatus(STATUS_KEY, undefined));
    this.forgetUi();
  }

  /** Stops following the tasks altogether. */
  dispose(): void {
    this.detach();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private showWidget(ui: ProgressUi): void {
    this.hideWidget();
    this.shownOn = ui;
    safely(() =>
      ui.setWidget(WIDGET_KEY, (tui, theme) => {
        this.requestRender = () => tui.requestRender();
        return new ProgressWidget(
          () => this.source.snapshot(),
          theme,
          this.now,
          undefined,
          () => this.source.waitingQuestion?.(),
        );
      }),
    );
  }

  private hideWidget(): void {
    const ui = this.shownOn;
    this.shownOn = undefined;
    this.requestRender = undefined;
    if (ui) safely(() => ui.setWidget(WIDGET_KEY, undefined));
  }

  private updateStatus(ui: ProgressUi, counts: Counts): void {
    const text = safely(() => styledStatus(counts, ui.theme));
    if (text === this.lastStatus && (this.statusOn === ui || text === undefined)) return;
    this.statusOn = ui;
    this.lastStatus = text;
    safely(() => ui.setStatus(STATUS_KEY, text));
  }

  private forgetUi(): void {
    this.shownOn = undefined;
    this.requestRender = undefined;
    this.statusOn = undefined;
    this.lastStatus = undefined;
    this.stopTicker();
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
  }

  private startTicker(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => this.refresh(), this.tickMs);
    this.ticker.unref();
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}

function countsKey(counts: Counts): string {
  return `${counts.running}/${counts.queued}/${counts.done}`;
}

/** UI calls on a context pi has replaced may throw; the next session's context takes over then. */
function safely<T>(action: () => T): T | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}

/*
 * Wires what the person sees to pi: the `subagent-result` card renderer, the progress widget and footer
 * segment of the background tasks, and the renderers of the tool's row (returned, for `registerSubagentTool`).
 *
 * Widgets and status need a context with a UI. It is taken from `session_start` (and again from `agent_start`,
 * which carries the same session's context) in the interactive TUI only; print and JSON mode have no UI, and
 * there no background tasks are ever created, so nothing here runs. The progress controller attaches when the
 * background tasks are created (`onCreated`), never creating them itself.
 */
export interface UiHandle {
  /** Pass to `registerSubagentTool` as `renderers`. */
  toolRenderers: SubagentToolRenderers;
}

export function registerUi(pi: ExtensionAPI, background: BackgroundHandle): UiHandle {
  pi.registerMessageRenderer(RESULT_CUSTOM_TYPE, renderResultCard);

  let session: ExtensionContext | undefined;
  let controller: ProgressController | undefined;

  const currentUi = (): ProgressUi | undefined => {
    if (!session) return undefined;
    try {
      return session.ui;
    } catch {
      // pi replaced the session (reload, /new, ...): the next session_start brings the new context.
      session = undefined;
      return undefined;
    }
  };

  const capture = (ctx: ExtensionContext) => {
    if (!ctx.hasUI || detectAppMode() !== "interactive") return;
    session = ctx;
    controller?.refresh();
  };

  background.onCreated((tasks) => {
    controller?.dispose();
    controller = new ProgressController(tasks, currentUi);
    controller.start();
  });

  pi.on("session_start", (_event, ctx) => capture(ctx));
  pi.on("agent_start", (_event, ctx) => capture(ctx));
  pi.on("session_shutdown", () => {
    controller?.detach();
    session = undefined;
  });

  return { toolRenderers: { renderCall: renderSubagentCall, renderResult: renderSubagentResult } };
}
