/**
 * How a call and its result are drawn: the tool row, the result card, a batch's or chain's card, and the expand hint.
 */
import {
  keyText,
  getMarkdownTheme,
  type AgentToolResult,
  type Theme,
  type ToolRenderResultOptions,
  type ThemeColor,
} from "@mariozechner/pi-coding-agent";
import {
  formatElapsed,
  oneLine,
  stripTerminalControls,
  shortTaskId,
  formatDuration,
  formatUsage,
  type Styler,
} from "../../shared/text.ts";
import { Container, Spacer, Text, Box, Markdown, type Component } from "@mariozechner/pi-tui";
import { deliverableNoteText } from "../../run/deliverable.ts";
import { verifyNoteText } from "../../run/verify.ts";
import type { SubagentResultDetails } from "../../records/record-store.ts";
import type { ReceiptDetails } from "../tool/execute.ts";
import type { SyncProgress } from "../../tool/run-sync.ts";
import type { SubagentParams } from "../../tool/schema.ts";
import type { WorkflowCardDetails, WorkflowCardPart } from "../../records/record.ts";

/** pi's default for `app.tools.expand`, used when the configured keys cannot be read. */
const DEFAULT_EXPAND_KEY = "ctrl+o";

/** The key that expands tool output and cards, as the person configured it (`ctrl+o` by default). */
function expandKey(): string {
  try {
    return keyText("app.tools.expand") || DEFAULT_EXPAND_KEY;
  } catch {
    return DEFAULT_EXPAND_KEY;
  }
}

/** `(ctrl+o to expand)`, dim. */
function expandHint(style: Styler, key: string = expandKey()): string {
  return style.fg("dim", `(${key} to expand)`);
}

/*
 * How a `subagent` tool call looks in the TUI instead of raw JSON.
 *
 * Call:   `subagent coder` and the task in one line; `subagent cancel <taskId>` (with the reason once confirmed).
 * Result: the receipt of a background dispatch; a live progress line while a blocking dispatch runs; for a
 *         blocking result a compact outcome line (usage, duration) that expands (Ctrl+O) to the output as
 *         Markdown; for a cancel the challenge or the confirmation (first line, all of it expanded); any other
 *         text (an error) as it is.
 */
/** What the renderers read of pi's tool render context (a subset, so tests can pass a plain object). */
export interface RowContext {
  lastComponent: Component | undefined;
  isError: boolean;
}

const ROW_TASK_PREVIEW_MAX = 120;
const REASON_PREVIEW_MAX = 120;
/** The agent name or task id the model passed (a real one is far shorter). */
const SUBJECT_MAX = 60;

export interface CallText {
  /** `subagent` or `subagent cancel` */
  head: string;
  /** The agent, or the task id to cancel. */
  subject: string;
  /** A second line: the task, or the cancel reason. */
  detail?: string;
}

export function callText(args: Partial<SubagentParams>): CallText {
  if (args.action === "cancel") {
    const reason = args.reason?.trim();
    const detail =
      args.confirm === true ? `confirm${reason ? `: ${oneLine(reason, REASON_PREVIEW_MAX)}` : ""}` : undefined;
    return { head: "subagent cancel", subject: oneLine(args.taskId ?? "", SUBJECT_MAX) || "…", detail };
  }
  if (args.action === "merge") {
    return {
      head: "subagent merge",
      subject: oneLine(args.taskId ?? "", SUBJECT_MAX) || "…",
      detail: args.confirm === true ? "confirm" : undefined,
    };
  }
  const workflow = Array.isArray(args.tasks)
    ? { head: "subagent batch", parts: args.tasks }
    : Array.isArray(args.chain)
      ? { head: "subagent chain", parts: args.chain }
      : undefined;
  if (workflow) {
    // Model-written entries: read defensively, each agent and task on one line.
    const entries = (workflow.parts as unknown[]).map((part) =>
      typeof part === "object" && part !== null ? (part as { agent?: unknown; task?: unknown }) : {},
    );
    const agents = entries.map((entry) =>
      typeof entry.agent === "string" && entry.agent.trim() ? entry.agent.trim() : "…",
    );
    const tasks = entries.map((entry, index) => `${index + 1}. ${typeof entry.task === "string" ? entry.task : ""}`);
    return {
      head: workflow.head,
      subject: oneLine(agents.join(", "), SUBJECT_MAX) || "…",
      detail: oneLine(tasks.join(" · "), ROW_TASK_PREVIEW_MAX) || undefined,
    };
  }
  const task = args.task?.trim() ? oneLine(args.task, ROW_TASK_PREVIEW_MAX) : undefined;
  const resume = args.sessionId?.trim() ? `resume ${shortTaskId(oneLine(args.sessionId, SUBJECT_MAX))}` : undefined;
  const detail = [resume, task].filter(Boolean).join(" · ") || undefined;
  return { head: "subagent", subject: oneLine(args.agent ?? "", SUBJECT_MAX) || "…", detail };
}

/** `coder · ⚡ bash: npm test · 00:12 · 2 turns/↑1.2k/↓300/$0.0010`. */
export function progressLine(progress: SyncProgress): string {
  const parts = [progress.agent, progress.phase];
  if (progress.lastTool && !progress.phase.startsWith("⚡")) parts.push(`last tool ${progress.lastTool}`);
  parts.push(formatElapsed(progress.elapsedMs), progress.usage);
  return parts.join(" · ");
}

export type ResultKind =
  | { kind: "receipt"; details: ReceiptDetails }
  | { kind: "progress"; progress: SyncProgress }
  | { kind: "result"; details: SubagentResultDetails }
  | { kind: "challenge" }
  | { kind: "cancel-sent" }
  | { kind: "text" };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Which of the tool's answers a result is, from its `details`. */
export function classifyResult(details: unknown, isPartial: boolean): ResultKind {
  if (!isObject(details)) return { kind: "text" };
  if (isPartial && isObject(details.progress))
    return { kind: "progress", progress: details.progress as unknown as SyncProgress };
  if (details.receipt === true) return { kind: "receipt", details: details as unknown as ReceiptDetails };
  if (details.confirmRequired === true) return { kind: "challenge" };
  if (details.cancelRequested === true) return { kind: "cancel-sent" };
  if (typeof details.taskId === "string" && typeof details.status === "string" && typeof details.agent === "string") {
    return { kind: "result", details: details as unknown as SubagentResultDetails };
  }
  return { kind: "text" };
}

function resultText(result: Pick<AgentToolResult<unknown>, "content">): string {
  return result.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .filter(Boolean)
    .join("\n");
}

/** The outcome line of a blocking result: `✓ coder succeeded · 01912345 · 00:12 · 1 turn/↑100/↓20/$0.0001`. */
export function syncResultLines(details: SubagentResultDetails, style: Styler): string[] {
  const card = cardText(details);
  const notes = card.notes.map((note) => style.fg(card.tone === "success" ? "muted" : card.tone, note));
  return [headerLine(card, style), ...notes];
}

/** A text whose first line says it all: the first line alone, or everything when expanded. */
function firstLineOrAll(text: string, colour: "warning" | "success", expanded: boolean, theme: Theme): Text {
  const [first = "", ...rest] = text.split("\n");
  let shown = theme.fg(colour, first);
  if (expanded) shown += rest.length > 0 ? `\n${theme.fg("toolOutput", rest.join("\n"))}` : "";
  else if (rest.some((line) => line.trim())) shown += ` ${expandHint(theme)}`;
  return new Text(shown, 0, 0);
}

function reuseText(lastComponent: Component | undefined): Text {
  return lastComponent instanceof Text ? lastComponent : new Text("", 0, 0);
}

export function renderSubagentCall(args: SubagentParams, theme: Theme, context: RowContext): Component {
  const call = callText(args ?? {});
  let text = `${theme.fg("toolTitle", theme.bold(call.head))} ${theme.fg("accent", call.subject)}`;
  if (call.detail) text += `\n${theme.fg("dim", call.detail)}`;
  const component = reuseText(context.lastComponent);
  component.setText(text);
  return component;
}

export function renderSubagentResult(
  result: AgentToolResult<unknown>,
  options: ToolRenderResultOptions,
  theme: Theme,
  context: RowContext,
): Component {
  const kind = classifyResult(result.details, options.isPartial);
  // Error texts repeat what the model passed (an agent name, an id): drawn without control sequences.
  const text = stripTerminalControls(resultText(result));
  switch (kind.kind) {
    case "progress":
      return new Text(`${theme.fg("accent", "●")} ${theme.fg("muted", progressLine(kind.progress))}`, 0, 0);
    case "receipt":
      return new Text(theme.fg(kind.details.queued ? "warning" : "toolOutput", text), 0, 0);
    case "challenge":
      return firstLineOrAll(text, "warning", options.expanded, theme);
    case "cancel-sent":
      return firstLineOrAll(text, "success", options.expanded, theme);
    case "result": {
      const lines = syncResultLines(kind.details, theme);
      if (!options.expanded) {
        lines[0] += ` ${expandHint(theme)}`;
        return new Text(lines.join("\n"), 0, 0);
      }
      const container = new Container();
      container.addChild(new Text(lines.join("\n"), 0, 0));
      container.addChild(new Spacer(1));
      container.addChild(outputComponent(kind.details.output ?? "", theme, "toolOutput"));
      return container;
    }
    case "text":
      return new Text(theme.fg(context.isError ? "error" : "toolOutput", text || "(no output)"), 0, 0);
  }
}

/*
 * The result card of a batch or chain: the title with the counts, one line per part (its outcome, short id,
 * time and usage; a refused or not-run chain step says so), and where each part's full result is read. The
 * envelope is what the model reads; this is what the person sees.
 *
 *   ✗ batch of 2: 1 succeeded, 1 failed · 01912345-6789 · 00:41 · 7 turns/↑20k/↓4.1k/$0.0061
 *     ✓ 1. explore succeeded · 01912345-a0b1 · 00:38 · 4 turns/↑12k/↓2.2k/$0.0034
 *     ✗ 2. coder failed · 01912345-c2d3 · 00:41 · 3 turns/↑8k/↓1.9k/$0.0027
 *   View a part's full result: /subagent-result <taskId>
 */
const VIEW_PART_LINE = "View a part's full result: /subagent-result <taskId>";

function isWorkflowCardDetails(value: unknown): value is WorkflowCardDetails {
  if (!value || typeof value !== "object") return false;
  const workflow = (value as Partial<WorkflowCardDetails>).workflow;
  return typeof workflow === "object" && workflow !== null && Array.isArray(workflow.parts);
}

function partLine(kind: WorkflowCardDetails["workflow"]["kind"], part: WorkflowCardPart, style: Styler): string {
  const label = `${kind === "chain" ? "Step " : ""}${part.index}. ${oneLine(part.agent, 60)} ${part.status}`;
  if (part.status === "refused" || !part.taskId) return `  ${style.fg("warning", "✗")} ${style.fg("muted", label)}`;
  const tone = toneOf(part.status);
  const figures =
    part.durationMs !== undefined && part.usage
      ? ` · ${runFigures({ durationMs: part.durationMs, usage: part.usage })}`
      : "";
  return `  ${style.fg(tone, part.status === "succeeded" ? "✓" : "✗")} ${label} ${style.fg("muted", `· ${shortTaskId(part.taskId)}${figures}`)}`;
}

function workflowCardLines(details: WorkflowCardDetails, style: Styler): string[] {
  const succeeded = details.status === "succeeded";
  const header = headerLine(
    {
      icon: succeeded ? "✓" : "✗",
      tone: succeeded ? "success" : "warning",
      title: oneLine(details.agent, 120),
      meta: `${shortTaskId(details.taskId)} · ${runFigures(details)}`,
    },
    style,
  );
  return [header, ...details.workflow.parts.map((part) => partLine(details.workflow.kind, part, style))];
}

/** pi's message renderer's branch for a workflow's `subagent-result`. */
function renderWorkflowCard(details: WorkflowCardDetails & { duplicate?: unknown }, theme: Theme): Component {
  if (details.duplicate === true) return new Text(theme.fg("dim", duplicateLine(details.taskId)), 0, 0);
  const box = new Box(1, 1, (text: string) => theme.bg("customMessageBg", text));
  box.addChild(new Text(workflowCardLines(details, theme).join("\n"), 0, 0));
  box.addChild(new Text(theme.fg("accent", VIEW_PART_LINE), 0, 0));
  return box;
}

/*
 * How a `[subagent-result]` message looks in the TUI: a compact card instead of the envelope (the envelope is
 * what the model reads; the card is what the person sees). Collapsed it is the outcome line, any note about
 * why the task ended, the task in one line and the command that shows the full result; expanded (Ctrl+O) it
 * adds the task in full and the output rendered as Markdown.
 *
 *   ✓ coder succeeded · 01912345-6789 · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042
 *   Task: Refactor the auth middleware to use async/await.
 *   View full result: /subagent-result 01912345-6789-7abc-8def-0123456789ab
 */
const CARD_TASK_PREVIEW_MAX = 160;
const NOTE_MAX = 300;

type Tone = "success" | "error" | "warning";

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

function viewResultLine(taskId: string): string {
  return `View full result: /subagent-result ${taskId}`;
}

function toneOf(status: SubagentResultDetails["status"]): Tone {
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
function userCancelCommand(reason: string | undefined): string {
  return reason?.startsWith("/subagent-cancel") ? reason : "/subagent-cancel";
}

function notesOf(details: SubagentResultDetails): string[] {
  const notes: string[] = [];
  if (details.status === "cancelled") {
    if (details.cancelledBy === "agent") {
      notes.push(
        details.cancelReason
          ? `Cancelled by the main agent: ${oneLine(details.cancelReason, NOTE_MAX)}`
          : "Cancelled by the main agent",
      );
    } else if (details.cancelledBy === "none") {
      notes.push("Stopped because the session shut down");
    } else {
      // A user cancel's reason is the command the person used (`/subagent-cancel-all`); older records have none.
      notes.push(`Cancelled by you (${userCancelCommand(details.cancelReason)})`);
    }
  }
  // A budget stop's message is its reason, not an error.
  if (details.status === "stopped" && details.errorMessage)
    notes.push(`Stopped: ${oneLine(details.errorMessage, NOTE_MAX)}`);
  else if (details.status !== "succeeded" && details.errorMessage)
    notes.push(`Error: ${oneLine(details.errorMessage, NOTE_MAX)}`);
  const deliverable = details.deliverable && deliverableNoteText(details.deliverable);
  if (deliverable) notes.push(`Deliverable: ${oneLine(deliverable, NOTE_MAX)}`);
  if (details.verify) notes.push(`Verify: ${oneLine(verifyNoteText(details.verify), NOTE_MAX)}`);
  return notes;
}

/** Duration and usage of a finished run: `02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042`. */
function runFigures(details: Pick<SubagentResultDetails, "durationMs" | "usage">): string {
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
function headerLine(card: Pick<CardText, "icon" | "tone" | "title" | "badge" | "meta">, style: Styler): string {
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
function outputComponent(output: string, theme: Theme, colour: ThemeColor = "customMessageText"): Component {
  const shown = stripTerminalControls(output).trim();
  if (!shown) return new Text(theme.fg("muted", "(no output)"), 0, 0);
  return new Markdown(shown, 0, 0, getMarkdownTheme(), { color: (text: string) => theme.fg(colour, text) });
}

/** The line shown for a duplicate copy of a result (the model never sees it). */
function duplicateLine(taskId: string): string {
  return `(result ${taskId} arrived a second time; the copy above is the one the model sees)`;
}

/** pi's message renderer for `subagent-result`; undefined (pi's default rendering) for a message it cannot read. */
export function renderResultCard(
  message: { details?: unknown },
  options: { expanded: boolean },
  theme: Theme,
): Component | undefined {
  const details = message.details;
  if (isWorkflowCardDetails(details)) return renderWorkflowCard(details, theme);
  if (!isResultDetails(details)) return undefined;
  // A second copy of a result already in the conversation (see src/delivery/delivery-tracker.ts): one dim line.
  if ((details as { duplicate?: unknown }).duplicate === true)
    return new Text(theme.fg("dim", duplicateLine(details.taskId)), 0, 0);
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
