/**
 * How a `[subagent-result]` message looks in the TUI: a compact card instead of the envelope (the envelope is
 * what the model reads; the card is what the person sees). Collapsed it is the outcome line, any note about
 * why the task ended, the task in one line and the command that shows the full result; expanded (Ctrl+O) it
 * adds the task in full and the output rendered as Markdown.
 *
 *   ✓ coder succeeded · 01912345-6789 · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042
 *   Task: Refactor the auth middleware to use async/await.
 *   View full result: /subagent-result 01912345-6789-7abc-8def-0123456789ab
 */
import { getMarkdownTheme, type Theme, type ThemeColor } from "@mariozechner/pi-coding-agent";
import { Box, Markdown, Spacer, Text, type Component } from "@mariozechner/pi-tui";
import { formatDuration, formatUsage, oneLine } from "../../shared/format.ts";
import { stripTerminalControls } from "../../shared/terminal-text.ts";
import type { SubagentResultDetails } from "../../records/details.ts";
import { expandHint } from "./expand-hint.ts";
import { isWorkflowCardDetails, renderWorkflowCard } from "./workflow-card.ts";
import { shortTaskId } from "../../shared/short-id.ts";
import type { Styler } from "../../shared/styler.ts";

const CARD_TASK_PREVIEW_MAX = 160;
const NOTE_MAX = 300;

export type Tone = "success" | "error" | "warning";

/** The card's parts as plain text; the renderer colours them. */
export interface CardText {
  icon: "✓" | "✗";
  tone: Tone;
  /** `coder succeeded` */
  title: string;
  /** The stop reason of a task that did not succeed, e.g. `activity_timeout` (shown as `[activity_timeout]`). */
  badge?: string;
  /** `01912345 · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042` */
  meta: string;
  /** Why it ended, when that is not plain success: who cancelled it, the error. */
  notes: string[];
  /** `View full result: /subagent-result <taskId>` */
  viewLine: string;
}

export function viewResultLine(taskId: string): string {
  return `View full result: /subagent-result ${taskId}`;
}

export function toneOf(status: SubagentResultDetails["status"]): Tone {
  if (status === "succeeded") return "success";
  if (status === "failed") return "error";
  return "warning";
}

function badgeOf(details: SubagentResultDetails): string | undefined {
  if (details.status === "succeeded") return undefined;
  if (details.stopReason && details.stopReason !== "stop") return details.stopReason;
  if (details.exitCode !== null && details.exitCode !== 0) return `exit ${details.exitCode}`;
  return undefined;
}

/** The command named for a user cancel: the one recorded, else `/subagent-cancel`. */
export function userCancelCommand(reason: string | undefined): string {
  return reason?.startsWith("/subagent-cancel") ? reason : "/subagent-cancel";
}

function notesOf(details: SubagentResultDetails): string[] {
  const notes: string[] = [];
  if (details.status === "cancelled") {
    if (details.cancelledBy === "agent") {
      notes.push(details.cancelReason ? `Cancelled by the main agent: ${oneLine(details.cancelReason, NOTE_MAX)}` : "Cancelled by the main agent");
    } else if (details.cancelledBy === "none") {
      notes.push("Stopped because the session shut down");
    } else {
      // A user cancel's reason is the command the person used (`/subagent-cancel-all`); older records have none.
      notes.push(`Cancelled by you (${userCancelCommand(details.cancelReason)})`);
    }
  }
  // A budget stop's message is its reason, not an error.
  if (details.status === "stopped" && details.errorMessage) notes.push(`Stopped: ${oneLine(details.errorMessage, NOTE_MAX)}`);
  else if (details.status !== "succeeded" && details.errorMessage) notes.push(`Error: ${oneLine(details.errorMessage, NOTE_MAX)}`);
  return notes;
}

/** Duration and usage of a finished run: `02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042`. */
export function runFigures(details: Pick<SubagentResultDetails, "durationMs" | "usage">): string {
  return `${formatDuration(details.durationMs)} · ${formatUsage(details.usage)}`;
}

export function cardText(details: SubagentResultDetails): CardText {
  return {
    icon: details.status === "succeeded" ? "✓" : "✗",
    tone: toneOf(details.status),
    title: `${oneLine(details.agent, 60)} ${details.status}`,
    badge: badgeOf(details),
    meta: `${shortTaskId(details.taskId)} · ${runFigures(details)}`,
    notes: notesOf(details),
    viewLine: viewResultLine(details.taskId),
  };
}

/** The outcome line: `✓ coder succeeded · 01912345 · …`, `✗ coder timed out [activity_timeout] · …`. */
export function headerLine(card: Pick<CardText, "icon" | "tone" | "title" | "badge" | "meta">, style: Styler): string {
  const badge = card.badge ? ` ${style.fg(card.tone, `[${card.badge}]`)}` : "";
  return `${style.fg(card.tone, card.icon)} ${style.fg("toolTitle", style.bold(card.title))}${badge} ${style.fg("muted", `· ${card.meta}`)}`;
}

/** The card's lines before the output, as plain-or-styled text (collapsed view, and the head of the expanded one). */
export function cardLines(details: SubagentResultDetails, expanded: boolean, style: Styler, hint?: string): string[] {
  const card = cardText(details);
  const taskText = expanded ? stripTerminalControls(details.task) : oneLine(details.task, CARD_TASK_PREVIEW_MAX);
  return [
    headerLine(card, style) + (!expanded && hint ? ` ${hint}` : ""),
    ...card.notes.map((note) => style.fg(card.tone === "success" ? "muted" : card.tone, note)),
    style.fg("dim", `Task: ${taskText}`),
  ];
}

function isResultDetails(value: unknown): value is SubagentResultDetails {
  if (!value || typeof value !== "object") return false;
  const details = value as Partial<SubagentResultDetails>;
  return typeof details.taskId === "string" && typeof details.agent === "string" && typeof details.status === "string";
}

/** The markdown body of an expanded card or tool row: the output, or a muted `(no output)`. */
export function outputComponent(output: string, theme: Theme, colour: ThemeColor = "customMessageText"): Component {
  const shown = stripTerminalControls(output).trim();
  if (!shown) return new Text(theme.fg("muted", "(no output)"), 0, 0);
  return new Markdown(shown, 0, 0, getMarkdownTheme(), { color: (text: string) => theme.fg(colour, text) });
}

/** The line shown for a duplicate copy of a result (the model never sees it). */
export function duplicateLine(taskId: string): string {
  return `(result ${taskId} arrived a second time; the copy above is the one the model sees)`;
}

/** pi's message renderer for `subagent-result`; undefined (pi's default rendering) for a message it cannot read. */
export function renderResultCard(message: { details?: unknown }, options: { expanded: boolean }, theme: Theme): Component | undefined {
  const details = message.details;
  if (isWorkflowCardDetails(details)) return renderWorkflowCard(details, theme);
  if (!isResultDetails(details)) return undefined;
  // A second copy of a result already in the conversation (see src/delivery/delivery-tracker.ts): one dim line.
  if ((details as { duplicate?: unknown }).duplicate === true) return new Text(theme.fg("dim", duplicateLine(details.taskId)), 0, 0);
  const box = new Box(1, 1, (text: string) => theme.bg("customMessageBg", text));
  box.addChild(new Text(cardLines(details, options.expanded, theme, expandHint(theme)).join("\n"), 0, 0));
  if (options.expanded) {
    box.addChild(new Spacer(1));
    box.addChild(outputComponent(details.output ?? "", theme));
    box.addChild(new Spacer(1));
  }
  box.addChild(new Text(theme.fg("accent", viewResultLine(details.taskId)), 0, 0));
  return box;
}
