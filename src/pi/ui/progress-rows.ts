/**
 * What the progress widget shows, as lines that fit a given terminal width: a titled rule with the counts,
 * then one row per task in flight (dispatch order), oldest hidden behind a `+N more` line past the height
 * budget. Pure: the caller passes the tasks, the clock and the colours.
 *
 *   ── Subagents · 2 running · 1 queued ─────────────────────────────
 *    ● 01912345-6789  coder   ⚡ bash: npm test                     01:23
 *    ● 01912345-a0b1  writer  thinking · last tool read: README.md  00:41
 *    ○ 01912346-0c2d  coder   queued (#1 in line)                   00:05
 */
import { stripTerminalControls } from "../../shared/terminal-text.ts";
import { truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import { budgetUseText } from "../../budget/limits.ts";
import { phaseLabel } from "../../run/phase-label.ts";
import { formatElapsed } from "../../shared/format.ts";
import type { TaskSnapshot } from "../../tasks/registry.ts";
import { shortTaskId, shortTaskIds } from "../../shared/short-id.ts";
import type { Styler } from "../../shared/styler.ts";

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

export interface TaskRow {
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

export interface MoreRow {
  kind: "more";
  hidden: number;
}

/** The line above a batch's or chain's rows: `batch 01912345 · 3 parts`, `chain 01912345 · step 2 of 3`. */
export interface GroupRow {
  kind: "group";
  label: string;
}

export type WidgetRow = TaskRow | MoreRow | GroupRow;

/** The group line's words for a workflow part. */
export function groupLabel(workflow: NonNullable<TaskSnapshot["workflow"]>): string {
  const id = shortTaskId(workflow.id);
  return workflow.kind === "batch" ? `batch ${id} · ${workflow.total} parts` : `chain ${id} · step ${workflow.index} of ${workflow.total}`;
}

/** A group line above each run of rows of one workflow (a batch's parts are dispatched one after another). */
function withGroupRows(tasks: readonly TaskSnapshot[], rows: readonly TaskRow[]): WidgetRow[] {
  const grouped: WidgetRow[] = [];
  rows.forEach((row, index) => {
    const workflow = tasks[index]?.workflow;
    if (workflow && tasks[index - 1]?.workflow?.id !== workflow.id) grouped.push({ kind: "group", label: groupLabel(workflow) });
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
export function titleLine(title: string, width: number, style: Styler): string {
  const lead = `${RULE}${RULE} `;
  const plain = `${lead}${title} `;
  if (visibleWidth(plain) >= width) return style.fg("accent", truncateToWidth(plain, width, "…"));
  const fill = RULE.repeat(width - visibleWidth(plain));
  const [name, ...rest] = title.split(" · ");
  const counts = rest.length > 0 ? ` · ${rest.join(" · ")}` : "";
  return style.fg("borderMuted", lead) + style.fg("accent", style.bold(name ?? "")) + style.fg("muted", `${counts} `) + style.fg("borderMuted", fill);
}

function padTo(text: string, width: number): string {
  const fitted = truncateToWidth(text, width, "…");
  return fitted + " ".repeat(Math.max(0, width - visibleWidth(fitted)));
}

/** Lays the task rows out in columns (id, agent, activity, clock), all within `width`. */
export function rowLines(rows: readonly WidgetRow[], width: number, style: Styler): string[] {
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
export function widgetLines(tasks: readonly TaskSnapshot[], now: number, width: number, style: Styler, maxRows = WIDGET_MAX_ROWS, question?: string): string[] {
  const running = tasks.filter((task) => task.status === "running").length;
  const title = titleLine(widgetTitle({ running, queued: tasks.length - running }), width, style);
  // A question waiting for the person comes right under the title, so it is seen before the rows.
  const asking = question ? [truncateToWidth(` ${style.fg("warning", stripTerminalControls(question))}`, width, "…")] : [];
  return [title, ...asking, ...rowLines(widgetRows(tasks, now, maxRows), width, style)];
}
