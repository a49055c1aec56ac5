/**
 * How a record's output and messages read for people and the main agent (pure): a stopped run's output is its
 * partial output (last text and tools it ran, under one heading); messages sent to a task are listed one a line.
 */
import { formatPartialOutput } from "../run/partial-output.ts";
import { oneLine } from "../shared/format.ts";
import type { TaskMessage, TaskRecord } from "./types.ts";

/** A stopped run (cancel, timeout, shutdown) keeps its tool list; only then is its output partial. */
export function isPartialRecord(record: Pick<TaskRecord, "partialTools">): boolean {
  return record.partialTools !== undefined;
}

/** The record's output as it should be shown: a stopped run's under the partial-output heading. */
export function shownOutput(record: Pick<TaskRecord, "output" | "partialTools">): string {
  if (!isPartialRecord(record)) return record.output;
  return formatPartialOutput({ text: record.output, tools: record.partialTools ?? [] });
}

/** `12:03:04 from the main agent (while running): check b.ts too` (UTC time). */
export function messageLine(message: TaskMessage): string {
  const time = new Date(message.at).toISOString().slice(11, 19);
  const from = message.from === "agent" ? "the main agent" : "the user";
  const when = message.delivery === "steer" ? "while running" : "while queued";
  return `${time} from ${from} (${when}): ${oneLine(message.text, 500)}`;
}

/** `Messages sent to it (2):` and one line each; empty when there were none. */
export function messageBlock(messages: readonly TaskMessage[] | undefined): string[] {
  if (!messages || messages.length === 0) return [];
  return [`Messages sent to it (${messages.length}):`, ...messages.map((message) => `- ${messageLine(message)}`)];
}
