/**
 * A trace as text: the same lines for print mode and the TUI viewer (which colours them through the styler).
 * Each task is a heading line with its agent, short id, status, model, start, duration and usage; under it the
 * decisions taken about it, then its steps with their offset from the trace's start, and each nested child
 * under the `subagent` call that started it. Every text from a record or a session is one line without control
 * sequences (the TUI colours the lines afterwards). Pure.
 *
 *   chain 01a24476-… · 3 subagents · 2.5 s · 6 turns/↑600/↓120/$0.0008
 *   1. worker 4152e710 · succeeded · fake/fake-model · 04:28:55 · 1.7 s · 4 turns/↑400/↓80/$0.0006
 *      +0.50 s  turn 1 · 30 ms · ↑100 ↓20 · $0.0001
 *      +0.52 s  tool bash: echo one · 0.3 s → one  ◀ slowest step
 *      +1.05 s  tool subagent: worker: Leaf job · 0.7 s
 *        worker 48756e1f · succeeded · …
 */
import {
  formatUsage,
  formatTokens,
  shortTaskId,
  counted,
  oneLine,
  stripTerminalControls,
  type Styler,
} from "../shared/text.ts";
import { formatCost } from "../budget/limits.ts";
import { childrenOfCall, unplacedChildren, stepDuration, type Trace, type TraceNode, type StepRef } from "./trace.ts";
import type { TraceStep } from "./session-steps.ts";

export const SLOWEST_MARK = "◀ slowest step";
export const COSTLIEST_MARK = "◀ most expensive step";

const PLAIN: Styler = { fg: (_color, text) => text, bold: (text) => text };

/** `0.3 s`, `45 ms`, `12 s`: short, with tenths below ten seconds. */
function traceSeconds(ms: number): string {
  if (ms < 100) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`;
  return `${Math.round(ms / 1000)} s`;
}

/** `04:28:55` (UTC, as the other commands show times). */
function clock(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

function isRef(ref: StepRef | undefined, node: TraceNode, index: number): boolean {
  return ref !== undefined && ref.taskId === node.taskId && ref.index === index;
}

function statusColor(status: TraceNode["status"]): "success" | "error" | "warning" | "accent" {
  if (status === "succeeded") return "success";
  if (status === "running") return "accent";
  return status === "cancelled" ? "warning" : "error";
}

/** The first line of a trace: what it is, how many tasks, how long and what it used. */
function traceHeading(trace: Trace, now: number): string {
  const took =
    trace.end === undefined ? `running for ${traceSeconds(now - trace.start)}` : traceSeconds(trace.end - trace.start);
  const subject = trace.kind === "task" ? `task ${trace.id}` : `${trace.kind} ${trace.id}`;
  return `${subject} · ${counted(trace.taskCount, "subagent")} · ${took} · ${formatUsage(trace.usage)}`;
}

function nodeHeading(node: TraceNode, now: number): string {
  const took =
    node.end === undefined ? `running ${traceSeconds(now - node.start)}` : traceSeconds(node.end - node.start);
  const parts = [`${oneLine(node.agent, 80)} ${shortTaskId(node.taskId)}`, node.status];
  if (node.model) parts.push(oneLine(node.model, 120));
  parts.push(clock(node.start), took, formatUsage(node.usage));
  return parts.join(" · ");
}

function stepText(step: TraceStep, start: number): string {
  const offset = `+${traceSeconds(Math.max(0, (step.kind === "prompt" ? step.at : step.start) - start))}`.padEnd(9);
  if (step.kind === "prompt") return `${offset}prompt: ${step.text}`;
  const ms = stepDuration(step);
  const took = ms === undefined ? "running" : traceSeconds(ms);
  if (step.kind === "turn") {
    const usage = `↑${formatTokens(step.input)} ↓${formatTokens(step.output)} · ${formatCost(step.cost)}`;
    const said = step.text ? ` → ${step.text}` : "";
    const stop = step.stopReason && !["stop", "toolUse"].includes(step.stopReason) ? ` (${step.stopReason})` : "";
    return `${offset}turn ${step.index}${stop} · ${took} · ${usage}${said}`;
  }
  const result = step.result === undefined ? "" : `${step.isError ? " · error: " : " → "}${step.result}`;
  return `${offset}tool ${step.name}${step.args ? `: ${step.args}` : ""} · ${took}${result}`;
}

/** The text of a trace, one entry a line; `styler` colours it for the TUI. */
export function traceLines(trace: Trace, now: number, styler: Styler = PLAIN): string[] {
  const lines = [styler.bold(traceHeading(trace, now))];
  const pad = (depth: number) => "   ".repeat(depth);
  const addNode = (node: TraceNode, depth: number, label: string) => {
    lines.push(`${pad(depth)}${label}${styler.fg(statusColor(node.status), nodeHeading(node, now))}`);
    if (node.task) lines.push(styler.fg("muted", `${pad(depth + 1)}Task: ${oneLine(node.task, 200)}`));
    for (const decision of node.decisions)
      lines.push(styler.fg("warning", `${pad(depth + 1)}· ${stripTerminalControls(oneLine(decision, 400))}`));
    node.steps.forEach((step, index) => {
      let text = stepText(step, trace.start);
      if (isRef(trace.slowest, node, index)) text += `  ${SLOWEST_MARK}`;
      if (isRef(trace.costliest, node, index)) text += `  ${COSTLIEST_MARK}`;
      const color = step.kind === "turn" ? "text" : step.kind === "prompt" ? "accent" : step.isError ? "error" : "dim";
      lines.push(`${pad(depth + 1)}${styler.fg(color, text)}`);
      if (step.kind === "tool") for (const child of childrenOfCall(node, step)) addNode(child, depth + 2, "");
    });
    for (const child of unplacedChildren(node)) addNode(child, depth + 1, "");
  };
  trace.roots.forEach((root, index) => addNode(root, 0, trace.kind === "task" ? "" : `${index + 1}. `));
  for (const agent of trace.notRun) lines.push(styler.fg("dim", `not run: ${agent}`));
  return lines;
}
