/**
 * How a `subagent` tool call looks in the TUI instead of raw JSON.
 *
 * Call:   `subagent coder` and the task in one line; `subagent cancel <taskId>` (with the reason once confirmed).
 * Result: the receipt of a background dispatch; a live progress line while a blocking dispatch runs; for a
 *         blocking result a compact outcome line (usage, duration) that expands (Ctrl+O) to the output as
 *         Markdown; for a cancel the challenge or the confirmation (first line, all of it expanded); any other
 *         text (an error) as it is.
 */
import type { AgentToolResult, Theme, ToolRenderResultOptions } from "@mariozechner/pi-coding-agent";
import { Container, Spacer, Text, type Component } from "@mariozechner/pi-tui";
import { formatElapsed, oneLine } from "../../shared/format.ts";
import { stripTerminalControls } from "../../shared/terminal-text.ts";
import type { SubagentResultDetails } from "../../records/details.ts";
import type { ReceiptDetails } from "../tool/background-dispatch.ts";
import type { SyncProgress } from "../../tool/run-sync.ts";
import type { SubagentParams } from "../../tool/schema.ts";
import { expandHint } from "./expand-hint.ts";
import { cardText, headerLine, outputComponent } from "./result-card.ts";
import { shortTaskId } from "../../shared/short-id.ts";
import type { Styler } from "../../shared/styler.ts";

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
    const detail = args.confirm === true ? `confirm${reason ? `: ${oneLine(reason, REASON_PREVIEW_MAX)}` : ""}` : undefined;
    return { head: "subagent cancel", subject: oneLine(args.taskId ?? "", SUBJECT_MAX) || "…", detail };
  }
  if (args.action === "merge") {
    return { head: "subagent merge", subject: oneLine(args.taskId ?? "", SUBJECT_MAX) || "…", detail: args.confirm === true ? "confirm" : undefined };
  }
  const workflow = Array.isArray(args.tasks) ? { head: "subagent batch", parts: args.tasks } : Array.isArray(args.chain) ? { head: "subagent chain", parts: args.chain } : undefined;
  if (workflow) {
    // Model-written entries: read defensively, each agent and task on one line.
    const entries = (workflow.parts as unknown[]).map((part) => (typeof part === "object" && part !== null ? (part as { agent?: unknown; task?: unknown }) : {}));
    const agents = entries.map((entry) => (typeof entry.agent === "string" && entry.agent.trim() ? entry.agent.trim() : "…"));
    const tasks = entries.map((entry, index) => `${index + 1}. ${typeof entry.task === "string" ? entry.task : ""}`);
    return { head: workflow.head, subject: oneLine(agents.join(", "), SUBJECT_MAX) || "…", detail: oneLine(tasks.join(" · "), ROW_TASK_PREVIEW_MAX) || undefined };
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
  if (isPartial && isObject(details.progress)) return { kind: "progress", progress: details.progress as unknown as SyncProgress };
  if (details.receipt === true) return { kind: "receipt", details: details as unknown as ReceiptDetails };
  if (details.confirmRequired === true) return { kind: "challenge" };
  if (details.cancelRequested === true) return { kind: "cancel-sent" };
  if (typeof details.taskId === "string" && typeof details.status === "string" && typeof details.agent === "string") {
    return { kind: "result", details: details as unknown as SubagentResultDetails };
  }
  return { kind: "text" };
}

export function resultText(result: Pick<AgentToolResult<unknown>, "content">): string {
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
