/**
 * The result card of a batch or chain: the title with the counts, one line per part (its outcome, short id,
 * time and usage; a refused or not-run chain step says so), and where each part's full result is read. The
 * envelope is what the model reads; this is what the person sees.
 *
 *   ✗ batch of 2: 1 succeeded, 1 failed · 01912345-6789 · 00:41 · 7 turns/↑20k/↓4.1k/$0.0061
 *     ✓ 1. explore succeeded · 01912345-a0b1 · 00:38 · 4 turns/↑12k/↓2.2k/$0.0034
 *     ✗ 2. coder failed · 01912345-c2d3 · 00:41 · 3 turns/↑8k/↓1.9k/$0.0027
 *   View a part's full result: /subagent-result <taskId>
 */
import { Box, Text, type Component } from "@mariozechner/pi-tui";
import type { Theme } from "@mariozechner/pi-coding-agent";
import { oneLine } from "../../shared/format.ts";
import { shortTaskId } from "../../shared/short-id.ts";
import type { Styler } from "../../shared/styler.ts";
import type { WorkflowCardDetails, WorkflowCardPart } from "../../records/types.ts";
import { duplicateLine, headerLine, runFigures, toneOf } from "./result-card.ts";

export const VIEW_PART_LINE = "View a part's full result: /subagent-result <taskId>";

export function isWorkflowCardDetails(value: unknown): value is WorkflowCardDetails {
  if (!value || typeof value !== "object") return false;
  const workflow = (value as Partial<WorkflowCardDetails>).workflow;
  return typeof workflow === "object" && workflow !== null && Array.isArray(workflow.parts);
}

function partLine(kind: WorkflowCardDetails["workflow"]["kind"], part: WorkflowCardPart, style: Styler): string {
  const label = `${kind === "chain" ? "Step " : ""}${part.index}. ${oneLine(part.agent, 60)} ${part.status}`;
  if (part.status === "refused" || !part.taskId) return `  ${style.fg("warning", "✗")} ${style.fg("muted", label)}`;
  const tone = toneOf(part.status);
  const figures = part.durationMs !== undefined && part.usage ? ` · ${runFigures({ durationMs: part.durationMs, usage: part.usage })}` : "";
  return `  ${style.fg(tone, part.status === "succeeded" ? "✓" : "✗")} ${label} ${style.fg("muted", `· ${shortTaskId(part.taskId)}${figures}`)}`;
}

export function workflowCardLines(details: WorkflowCardDetails, style: Styler): string[] {
  const succeeded = details.status === "succeeded";
  const header = headerLine(
    { icon: succeeded ? "✓" : "✗", tone: succeeded ? "success" : "warning", title: oneLine(details.agent, 120), meta: `${shortTaskId(details.taskId)} · ${runFigures(details)}` },
    style,
  );
  return [header, ...details.workflow.parts.map((part) => partLine(details.workflow.kind, part, style))];
}

/** pi's message renderer's branch for a workflow's `subagent-result`. */
export function renderWorkflowCard(details: WorkflowCardDetails & { duplicate?: unknown }, theme: Theme): Component {
  if (details.duplicate === true) return new Text(theme.fg("dim", duplicateLine(details.taskId)), 0, 0);
  const box = new Box(1, 1, (text: string) => theme.bg("customMessageBg", text));
  box.addChild(new Text(workflowCardLines(details, theme).join("\n"), 0, 0));
  box.addChild(new Text(theme.fg("accent", VIEW_PART_LINE), 0, 0));
  return box;
}
