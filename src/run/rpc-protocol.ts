import { parseUiRequest } from "../dialogs/child-ui-request.ts";
import type { ChildUiRequest } from "../dialogs/child-ui-request.ts";
import type { DialogResponse } from "../dialogs/dialog-bridge.ts";

/**
 * The few RPC commands we send to a child `pi --mode rpc`, and the few kinds of its output lines we answer
 * (pure). Framing is strict JSONL: one JSON object per LF-terminated line; JSON.stringify escapes LF, U+2028 and
 * U+2029 inside strings, so any text is safe in a command.
 */

export type RpcCommand = { type: "prompt"; message: string }
  | { type: "steer"; message: string }
  | { type: "abort" }
  | DialogResponse;

export function encodeRpcCommand(command: RpcCommand): string {
  return `${JSON.stringify(command)}\n`;
}

/** Who sent a message to a running subagent. */
export type MessageSender = "agent" | "user";

/** The text a child receives for a message, clearly marked as not coming from its own task. */
export function markedMessage(text: string, from: MessageSender, when: "running" | "queued" = "running"): string {
  const who = from === "agent" ? "the main agent (the agent that dispatched you)" : "the user, via the main agent's session";
  const sent = when === "running" ? "sent while you were working" : "sent before you started";
  return `[Message from ${who}, ${sent}]\n${text}`;
}

export type RpcLine = { kind: "response"; command: string; success: boolean; error?: string }
  /** An extension UI request: a dialog waiting for an answer, or a fire-and-forget one (src/core/dialogs/). */
  | { kind: "ui"; request: ChildUiRequest }
  | { kind: "other" };

const RESPONSE_PREFIX = '{"type":"response"';
const UI_REQUEST_PREFIX = '{"type":"extension_ui_request"';

/**
 * Classifies one output line of an RPC child: a command response, an extension UI request, or anything else.
 */
export function classifyRpcLine(text: string): RpcLine {
  if (!text.startsWith(RESPONSE_PREFIX) && !text.startsWith(UI_REQUEST_PREFIX)) return { kind: "other" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "other" };
  }
  if (!parsed || typeof parsed !== "object") return { kind: "other" };
  const line = (parsed as Record<string, unknown>);
  if (line.type === "response") {
    return {
      kind: "response",
      command: typeof line.command === "string" ? line.command : "",
      success: line.success === true,
      error: typeof line.error === "string" ? line.error : undefined,
    };
  }
  const request = parseUiRequest(line);
  if (request) return { kind: "ui", request };
  return { kind: "other" };
}
