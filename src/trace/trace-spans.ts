/**
 * A trace as OpenTelemetry spans, one JSON object a line (`/subagent-trace <id> --json <file>`): a span for the
 * batch or chain, one per task (`invoke_agent <agent>`), one per model turn (`chat <model>`) and one per tool
 * call (`execute_tool <tool>`), with parent links that rebuild the tree (a nested child's parent is the
 * `subagent` call that started it) and attributes after OpenTelemetry's GenAI semantic conventions. A span's
 * times are kept inside its parent's, so the tree nests in time as well. Pure.
 */
import { createHash } from "node:crypto";
import { taskSpanId, traceIdOf, workflowSpanId } from "../delivery/lifecycle-events.ts";
import { childrenOfCall, unplacedChildren, type Trace, type TraceNode } from "./trace.ts";

type AttributeValue = string | number | boolean;

export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** `INTERNAL` for tasks and workflows, `CLIENT` for a model call, `INTERNAL` for a tool. */
  kind: "INTERNAL" | "CLIENT";
  /** Nanoseconds since the epoch, as a decimal string (OTLP's JSON form of a 64-bit number). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, AttributeValue>;
  status: { code: "OK" | "ERROR" | "UNSET"; message?: string };
}

/** The attribute our cost goes under: the GenAI conventions have none for money. */
const COST_ATTRIBUTE = "pi_subagent.cost_usd";

const nanos = (ms: number): string => (BigInt(Math.round(ms)) * 1_000_000n).toString();

/** A step's span id: stable for the same task and step, so two exports of one trace agree. */
function stepSpanId(taskId: string, index: number): string {
  return createHash("sha256").update(`${taskId}#${index}`).digest("hex").slice(0, 16);
}

interface Window {
  start: number;
  end: number;
}

/** [start, end] kept inside the parent's window (clocks of two processes may disagree by a few ms). */
function within(parent: Window, start: number, end: number): Window {
  const s = Math.min(Math.max(start, parent.start), parent.end);
  return { start: s, end: Math.min(Math.max(end, s), parent.end) };
}

/** The spans of a trace, parents before children; `now` closes what still runs. */
export function traceSpans(trace: Trace, now: number): TraceSpan[] {
  const traceId = traceIdOf(trace.id);
  const spans: TraceSpan[] = [];
  const span = (
    spanId: string,
    parentSpanId: string | undefined,
    name: string,
    kind: TraceSpan["kind"],
    window: Window,
    attributes: TraceSpan["attributes"],
    status: TraceSpan["status"],
  ) =>
    spans.push({
      traceId,
      spanId,
      ...(parentSpanId ? { parentSpanId } : {}),
      name,
      kind,
      startTimeUnixNano: nanos(window.start),
      endTimeUnixNano: nanos(window.end),
      attributes,
      status,
    });

  const addNode = (node: TraceNode, parentSpanId: string | undefined, parent: Window) => {
    const spanId = taskSpanId(node.taskId);
    const window = within(parent, node.start, node.end ?? now);
    const attributes: TraceSpan["attributes"] = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": node.agent,
      "gen_ai.agent.id": node.taskId,
      "gen_ai.usage.input_tokens": node.usage.input,
      "gen_ai.usage.output_tokens": node.usage.output,
      [COST_ATTRIBUTE]: node.usage.cost,
      "pi_subagent.status": node.status,
      "pi_subagent.depth": node.depth,
      "pi_subagent.turns": node.usage.turns,
    };
    if (node.model) attributes["gen_ai.request.model"] = node.model;
    if (node.decisions.length > 0) attributes["pi_subagent.decisions"] = node.decisions.join("\n");
    const failed = node.status !== "succeeded" && node.status !== "running";
    span(spanId, parentSpanId, `invoke_agent ${node.agent}`, "INTERNAL", window, attributes, {
      code: failed ? "ERROR" : node.status === "running" ? "UNSET" : "OK",
      ...(failed ? { message: node.status } : {}),
    });
    node.steps.forEach((step, index) => {
      if (step.kind === "prompt") return;
      const id = stepSpanId(node.taskId, index);
      const stepWindow = within(window, step.start, step.end ?? now);
      if (step.kind === "turn") {
        const turn: TraceSpan["attributes"] = {
          "gen_ai.operation.name": "chat",
          "gen_ai.usage.input_tokens": step.input,
          "gen_ai.usage.output_tokens": step.output,
          "gen_ai.usage.cache_read.input_tokens": step.cacheRead,
          "gen_ai.usage.cache_creation.input_tokens": step.cacheWrite,
          [COST_ATTRIBUTE]: step.cost,
        };
        const model = step.model ?? node.model;
        if (model) {
          turn["gen_ai.request.model"] = model;
          turn["gen_ai.provider.name"] = model.split("/")[0]!;
        }
        if (step.stopReason) turn["gen_ai.response.finish_reasons"] = step.stopReason;
        const error = step.stopReason === "error" || step.stopReason === "aborted";
        span(id, spanId, `chat ${model ?? ""}`.trim(), "CLIENT", stepWindow, turn, { code: error ? "ERROR" : "OK" });
        return;
      }
      span(
        id,
        spanId,
        `execute_tool ${step.name}`,
        "INTERNAL",
        stepWindow,
        { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": step.name, "gen_ai.tool.call.id": step.callId },
        { code: step.isError ? "ERROR" : step.end === undefined ? "UNSET" : "OK" },
      );
      for (const child of childrenOfCall(node, step)) addNode(child, id, stepWindow);
    });
    for (const child of unplacedChildren(node)) addNode(child, spanId, window);
  };

  const whole: Window = { start: trace.start, end: trace.end ?? now };
  if (trace.kind === "task") {
    for (const root of trace.roots) addNode(root, undefined, whole);
    return spans;
  }
  const workflowSpan = workflowSpanId(trace.id);
  span(
    workflowSpan,
    undefined,
    `invoke_workflow ${trace.kind}`,
    "INTERNAL",
    whole,
    {
      "pi_subagent.workflow.kind": trace.kind,
      "pi_subagent.workflow.id": trace.id,
      "gen_ai.usage.input_tokens": trace.usage.input,
      "gen_ai.usage.output_tokens": trace.usage.output,
      [COST_ATTRIBUTE]: trace.usage.cost,
    },
    { code: trace.roots.every((root) => root.status === "succeeded" || root.status === "running") ? "OK" : "ERROR" },
  );
  for (const root of trace.roots) addNode(root, workflowSpan, whole);
  return spans;
}

/** One span a line, as `--json` writes them. */
export function spanLines(spans: readonly TraceSpan[]): string {
  return spans.map((span) => `${JSON.stringify(span)}\n`).join("");
}
