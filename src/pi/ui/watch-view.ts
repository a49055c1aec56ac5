/**
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
import { stripTerminalControls } from "../../shared/terminal-text.ts";
import type { Theme, ThemeColor } from "@mariozechner/pi-coding-agent";
import { truncateToWidth, wrapTextWithAnsi, type Component } from "@mariozechner/pi-tui";
import { emptyUsage, formatElapsed, formatUsage, oneLine, type UsageTotals } from "../../shared/format.ts";
import { budgetUseText, type BudgetLimits } from "../../budget/limits.ts";
import type { ActivityLine, RunPhase } from "../../run/types.ts";
import type { TaskSnapshot } from "../../tasks/registry.ts";
import type { TaskMessage } from "../../records/types.ts";
import { watchEnded } from "../../commands/notices.ts";
import { viewerExitOf, type ViewerExit } from "./result-viewer.ts";

export type WatchTheme = Pick<Theme, "fg" | "bold">;

/** How often the caller refreshes the frame while the task runs. */
export const WATCH_REFRESH_MS = 1000;

export const WATCH_LIVE_HINT = "live · refreshed every second";
export const WATCH_CLOSE_HINT = "q/Esc close";
/** Opened from the picker: Esc goes back to it, q closes both. */
export const WATCH_CLOSE_HINT_FROM_LIST = "Esc back to the list · q close";

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
        : activity.slice(-activityRoom).map((line) => fit(` ${theme.fg(activityColor(line), activityText(line, startedAt))}`));

    const streamRoom = room - activityLines.length;
    const wrapped = frame.streamTail.trim() === "" ? [] : wrapTextWithAnsi(plainStreamText(frame.streamTail).trimEnd(), Math.max(1, width - 1));
    const streamLines =
      wrapped.length === 0 ? [theme.fg("dim", fit(" (no text yet)"))] : wrapped.slice(-streamRoom).map((line) => fit(` ${line}`));

    const lines = [
      fit(theme.fg("accent", theme.bold(` Watching subagent · ${frame.taskId}`))),
      fit(` ${watchStatusLine(frame)}`),
      fit(theme.fg("muted", ` Task: ${oneLine(frame.task, 4 * width)}`)),
      // A question waiting for the person is why the task is quiet: it comes before the activity.
      ...(frame.question ? [fit(theme.fg("warning", ` ? ${stripTerminalControls(frame.question)} · /subagent-answer`))] : []),
      rule("Activity"),
      ...activityLines,
      rule("Streamed text"),
      ...streamLines,
    ];
    while (lines.length < rows - 2) lines.push("");
    // The last line is the live hint, or once the task ended the pinned pointer to its result.
    const footer = this.endLine === undefined ? theme.fg("dim", ` ${WATCH_LIVE_HINT}`) : theme.fg("accent", theme.bold(` ${this.endLine}`));
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
