/**
 * How a record names the model and thinking level its child ran with, and where each came from:
 * `fake/fake-reasoner (call) · thinking: high (call)`. Pure.
 */
import type { TaskRecord } from "./types.ts";

type ModelFields = Pick<TaskRecord, "model" | "modelSource" | "thinking" | "thinkingSource">;

function withSource(value: string, source: string | undefined): string {
  return source ? `${value} (${source})` : value;
}

/** The model with its source, then the thinking level with its source when one was set. */
export function modelProvenanceText(record: ModelFields): string | undefined {
  const parts: string[] = [];
  if (record.model) parts.push(withSource(record.model, record.modelSource));
  if (record.thinking) parts.push(`thinking: ${withSource(record.thinking, record.thinkingSource)}`);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** Whether the tool call itself chose the model or the thinking level (the envelope then says so). */
export function callChoseModel(record: ModelFields): boolean {
  return record.modelSource === "call" || record.thinkingSource === "call";
}
