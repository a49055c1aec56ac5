/**
 * `context: "fork"`: the main agent's conversation as the first part of a child's new session. The messages are
 * the ones pi itself would send to the model (the active branch, compaction applied: see forkedConversation in
 * src/pi/tool/execute.ts); this file makes them valid as a child's history and writes them as session entries.
 *
 * The call that is dispatching right now sits in the parent's last assistant message as a tool call without a
 * result; a model given that history would see a call that never answered. The history therefore ends before
 * the assistant message holding that call (its results and any later messages go with it), and any other
 * assistant message left at the end with unanswered tool calls is dropped the same way. pi 1.x also keeps the
 * system prompt and the tool loadout in the transcript, as `system` messages; those are the parent's and would
 * give the child the main agent's prompt sections and tools, so they are left out: the child builds its own.
 * Pure: no pi, no fs.
 */
import { randomBytes } from "node:crypto";

/** The shape of a message this file relies on; everything else in a message is copied as it is. */
export interface ForkMessage {
  role: string;
  content?: unknown;
  toolCallId?: string;
  timestamp?: number;
}

export interface ForkedHistory {
  /** Session entries (JSONL, one line each, newline-terminated) to write after the session header. */
  lines: string;
  messageCount: number;
  /** Characters of the serialized messages: what the size limit is measured on. */
  chars: number;
}

export type ForkResult = { ok: true; history: ForkedHistory } | { ok: false; message: string };

function toolCallIds(message: ForkMessage): string[] {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
  const ids: string[] = [];
  for (const block of message.content as unknown[]) {
    if (block && typeof block === "object" && (block as { type?: unknown }).type === "toolCall") {
      const id = (block as { id?: unknown }).id;
      if (typeof id === "string") ids.push(id);
    }
  }
  return ids;
}

/** The messages a forked child may start from: everything before the in-flight call, with no dangling calls. */
export function historyBeforeCall<T extends ForkMessage>(
  messages: readonly T[],
  inFlightToolCallId: string | undefined,
): T[] {
  const callAt =
    inFlightToolCallId === undefined
      ? -1
      : messages.findIndex((message) => toolCallIds(message).includes(inFlightToolCallId));
  const kept = (callAt >= 0 ? messages.slice(0, callAt) : [...messages]).filter((message) => message.role !== "system");
  // Anything still ending in a call without its results (a run that was cut off) is dropped back to a clean end.
  for (;;) {
    const last = kept.at(-1);
    if (!last) break;
    if (last.role === "toolResult") {
      const owner = [...kept].reverse().find((message) => message.role === "assistant");
      const answered = new Set(
        kept.filter((message) => message.role === "toolResult").map((message) => message.toolCallId),
      );
      if (owner && toolCallIds(owner).every((id) => answered.has(id))) break;
      kept.pop();
      continue;
    }
    if (toolCallIds(last).length > 0) {
      kept.pop();
      continue;
    }
    break;
  }
  return kept;
}

function forkTooLargeMessage(chars: number, limit: number): string {
  return (
    `Cannot fork the conversation: it is ${chars} characters, above the fork limit of ${limit} ` +
    `(PI_SUBAGENT_FORK_MAX_CHARS, or "$forkMaxChars" in subagent-isolation.json). ` +
    `Dispatch with context "fresh" and a self-contained task, or raise the limit.`
  );
}

function newEntryId(taken: Set<string>): string {
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

/**
 * One message as a session entry line. A custom message (a delivered `[subagent-result]`, another extension's
 * message) goes back to the `custom_message` entry pi made it from; everything else is a `message` entry.
 */
function entryLine(message: ForkMessage, serialized: string, id: string, parentId: string | null, at: Date): string {
  const timestamp = at.toISOString();
  if (message.role === "custom") {
    const { role: _role, timestamp: _timestamp, ...fields } = message as ForkMessage & Record<string, unknown>;
    return `${JSON.stringify({ type: "custom_message", id, parentId, timestamp, ...fields })}\n`;
  }
  return `{"type":"message","id":${JSON.stringify(id)},"parentId":${JSON.stringify(parentId)},"timestamp":${JSON.stringify(timestamp)},"message":${serialized}}\n`;
}

/**
 * The forked history as session entries, or a refusal when it is over `maxChars`. Each message becomes a
 * `message` entry chained to the one before, so the child's pi reads back exactly these messages.
 */
export function buildForkedHistory(
  messages: readonly ForkMessage[],
  inFlightToolCallId: string | undefined,
  maxChars: number,
  now: Date = new Date(),
): ForkResult {
  const kept = historyBeforeCall(messages, inFlightToolCallId);
  const serialized = kept.map((message) => JSON.stringify(message));
  const chars = serialized.reduce((sum, text) => sum + text.length, 0);
  if (chars > maxChars) return { ok: false, message: forkTooLargeMessage(chars, maxChars) };
  const taken: Set<string> = new Set();
  let parentId: string | null = null;
  let lines = "";
  kept.forEach((message, index) => {
    const id = newEntryId(taken);
    const at =
      typeof message.timestamp === "number" && Number.isFinite(message.timestamp) ? new Date(message.timestamp) : now;
    lines += entryLine(message, serialized[index] as string, id, parentId, at);
    parentId = id;
  });
  return { ok: true, history: { lines, messageCount: kept.length, chars } };
}
