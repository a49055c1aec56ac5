/**
 * The few RPC commands we send to a child `pi --mode rpc`, and the few kinds of its output lines we answer
 * (pure). Framing is strict JSONL: one JSON object per LF-terminated line; JSON.stringify escapes LF, U+2028 and
 * U+2029 inside strings, so any text is safe in a command.
 */

export type RpcCommand = { type: "prompt"; message: string }
  | { type: "steer"; message: string }
  | { type: "abort" }
  | { type: "extension_ui_response"; id: string; cancelled: true };

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

/** Dialog methods of pi's RPC extension UI that wait for a client answer; nobody answers them for a child. */
const DIALOG_METHODS = new Set(["select", "confirm", "input", "editor"]);

export type RpcLine = { kind: "response"; command: string; success: boolean; error?: string }
  | { kind: "dialog"; id: string }
  | { kind: "other" };

const RESPONSE_PREFIX = '{"type":"response"';
const UI_REQUEST_PREFIX = '{"type":"extension_ui_request"';

/**
 * Classifies one output line of an RPC child: a command response, a dialog request that must be answered, or anything else.
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
  if (line.type === "extension_ui_request" && typeof line.id === "string" && typeof line.method === "string" && DIALOG_METHODS.has(line.method)) {
    return { kind: "dialog", id: line.id };
  }
  return { kind: "other" };
}
