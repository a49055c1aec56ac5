// @ts-check
/**
 * The few RPC commands we send to a child `pi --mode rpc`, and the few kinds of its output lines we answer
 * (pure). Framing is strict JSONL: one JSON object per LF-terminated line; JSON.stringify escapes LF, U+2028 and
 * U+2029 inside strings, so any text is safe in a command.
 */

/**
 * @typedef {{ type: "prompt"; message: string }
 *   | { type: "steer"; message: string }
 *   | { type: "abort" }
 *   | { type: "extension_ui_response"; id: string; cancelled: true }} RpcCommand
 */

/**
 * @param {RpcCommand} command
 * @returns {string}
 */
export function encodeRpcCommand(command) {
  return `${JSON.stringify(command)}\n`;
}

/**
 * Who sent a message to a running subagent.
 * @typedef {"agent" | "user"} MessageSender
 */

/**
 * The text a child receives for a message, clearly marked as not coming from its own task.
 * @param {string} text
 * @param {MessageSender} from
 * @param {"running" | "queued"} [when="running"]
 * @returns {string}
 */
export function markedMessage(text, from, when = "running") {
  const who = from === "agent" ? "the main agent (the agent that dispatched you)" : "the user, via the main agent's session";
  const sent = when === "running" ? "sent while you were working" : "sent before you started";
  return `[Message from ${who}, ${sent}]\n${text}`;
}

/** Dialog methods of pi's RPC extension UI that wait for a client answer; nobody answers them for a child. */
const DIALOG_METHODS = new Set(["select", "confirm", "input", "editor"]);

/**
 * @typedef {{ kind: "response"; command: string; success: boolean; error?: string }
 *   | { kind: "dialog"; id: string }
 *   | { kind: "other" }} RpcLine
 */

const RESPONSE_PREFIX = '{"type":"response"';
const UI_REQUEST_PREFIX = '{"type":"extension_ui_request"';

/**
 * Classifies one output line of an RPC child: a command response, a dialog request that must be answered, or anything else.
 * @param {string} text
 * @returns {RpcLine}
 */
export function classifyRpcLine(text) {
  if (!text.startsWith(RESPONSE_PREFIX) && !text.startsWith(UI_REQUEST_PREFIX)) return { kind: "other" };
  /** @type {unknown} */
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "other" };
  }
  if (!parsed || typeof parsed !== "object") return { kind: "other" };
  const line = /** @type {Record<string, unknown>} */ (parsed);
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
