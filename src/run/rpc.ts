/**
 * Talking to a child pi: its stdout as bounded lines, the RPC commands, messages coalesced into one steer, and the checks on text handed to it.
 */
import { parseUiRequest, type ChildUiRequest, type DialogResponse } from "../dialogs/child-dialogs.ts";
import type { ChildMode } from "./stop-sequence.ts";

/*
 * Splits a child's stdout into lines with bounded memory. A line longer than `maxLineChars` is not kept whole:
 * only its head and tail survive (enough for the fast paths of the event reducer), so a runaway child cannot
 * make us buffer without limit.
 */
export interface SplitLine {
  /** The whole line, when it fitted. */
  text?: string;
  /** For an oversized line: its first and last characters, and its full length. */
  head?: string;
  tail?: string;
  length: number;
}

/** 8 Mi characters: far above any real answer, and low enough that a child printing 100 MB without a newline stays within 64 MB of heap. */
export const DEFAULT_MAX_LINE_CHARS = 8 * 1024 * 1024;
const KEEP_CHARS = 256 * 1024;

export class LineSplitter {
  private readonly onLine: (line: SplitLine) => void;
  private readonly maxLineChars: number;
  private parts: string[] = [];
  private partsLength = 0;
  private head: string | undefined;
  /** An oversized line's last pieces, trimmed to KEEP_CHARS only once they hold twice that (so each character is copied a bounded number of times, however small the chunks). */
  private tailParts: string[] = [];
  private tailLength = 0;
  private overflowLength = 0;

  constructor(onLine: (line: SplitLine) => void, maxLineChars: number = DEFAULT_MAX_LINE_CHARS) {
    this.onLine = onLine;
    this.maxLineChars = maxLineChars;
  }

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", start);
      if (newline < 0) {
        if (start < chunk.length) this.append(chunk.slice(start));
        return;
      }
      this.append(chunk.slice(start, newline));
      this.emit();
      start = newline + 1;
    }
  }

  /** Emits what is left when the stream ends without a final newline. */
  end(): void {
    if (this.partsLength > 0 || this.head !== undefined) this.emit();
  }

  private append(piece: string): void {
    if (piece.length === 0) return;
    if (this.head !== undefined) {
      this.overflowLength += piece.length;
      this.tailParts.push(piece.length > KEEP_CHARS ? piece.slice(-KEEP_CHARS) : piece);
      this.tailLength += Math.min(piece.length, KEEP_CHARS);
      if (this.tailLength > 2 * KEEP_CHARS) this.setTail(this.tailParts.join("").slice(-KEEP_CHARS));
      return;
    }
    this.parts.push(piece);
    this.partsLength += piece.length;
    if (this.partsLength > this.maxLineChars) {
      const joined = this.parts.join("");
      this.head = joined.slice(0, KEEP_CHARS);
      this.setTail(joined.slice(-KEEP_CHARS));
      this.overflowLength = joined.length;
      this.parts = [];
      this.partsLength = 0;
    }
  }

  private setTail(tail: string): void {
    this.tailParts = tail === "" ? [] : [tail];
    this.tailLength = tail.length;
  }

  private emit(): void {
    if (this.head !== undefined) {
      const tail = this.tailParts.join("").slice(-KEEP_CHARS);
      this.onLine({ head: this.head, tail, length: this.overflowLength });
      this.head = undefined;
      this.setTail("");
      this.overflowLength = 0;
      return;
    }
    const text = this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join("");
    this.parts = [];
    this.partsLength = 0;
    this.onLine({ text, length: text.length });
  }
}

/**
 * The few RPC commands we send to a child `pi --mode rpc`, and the few kinds of its output lines we answer
 * (pure). Framing is strict JSONL: one JSON object per LF-terminated line; JSON.stringify escapes LF, U+2028 and
 * U+2029 inside strings, so any text is safe in a command.
 */

export type RpcCommand =
  | { type: "prompt"; message: string }
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
  const who =
    from === "agent" ? "the main agent (the agent that dispatched you)" : "the user, via the main agent's session";
  const sent = when === "running" ? "sent while you were working" : "sent before you started";
  return `[Message from ${who}, ${sent}]\n${text}`;
}

export type RpcLine =
  | { kind: "response"; command: string; success: boolean; error?: string }
  /** An extension UI request: a dialog waiting for an answer, or a fire-and-forget one (src/dialogs/). */
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
  const line = parsed as Record<string, unknown>;
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

/*
 * Messages to a running child, coalesced. pi delivers queued steers one per model call (its default steering
 * mode), so a burst of messages would cost the child one model call each. Instead at most one steer is
 * waiting in the child at a time: the first message goes at once; those that arrive while it waits are held,
 * and when the child takes the waiting one in (its user message shows in the child's event stream), all held
 * messages go as one steer, in the order they came. Pure: the runner gives it the send and reports the take-in.
 */
/** Part of the header every message to a running child carries (see markedMessage in rpc-protocol.ts). */
const RUNNING_MESSAGE_MARK = "sent while you were working]";

/**
 * The prompt that starts one more run when the child ended its run with a steer still waiting (it arrived
 * just after pi's last look at its queue): pi's new run takes the waiting steer in first, after this line.
 */
export const STRANDED_STEER_PROMPT =
  "[Messages sent to you while you were finishing follow. Take them into account; your reply to them is your final answer.]";

/** Between two messages of one coalesced steer. */
const MESSAGE_SEPARATOR = "\n\n";

const MESSAGE_END_PREFIX = '{"type":"message_end"';

/** Whether a line of the child's stream is the child taking in one of our steers. */
export function isSteerTakenIn(line: string): boolean {
  return line.startsWith(MESSAGE_END_PREFIX) && line.includes('"role":"user"') && line.includes(RUNNING_MESSAGE_MARK);
}

export class SteerBatch {
  private readonly send: (text: string) => boolean;
  /** A steer was sent that the child has not taken in yet. */
  private waiting = false;
  private held: string[] = [];

  constructor(send: (text: string) => boolean) {
    this.send = send;
  }

  /** Sends `text` now, or holds it for the next steer; false when it could not be sent (the child's input is closed). */
  offer(text: string): boolean {
    if (this.waiting) {
      this.held.push(text);
      return true;
    }
    if (!this.send(text)) return false;
    this.waiting = true;
    return true;
  }

  /** The child took the waiting steer in: send everything held as one steer. */
  takenIn(): void {
    if (this.held.length === 0) {
      this.waiting = false;
      return;
    }
    const text = this.held.join(MESSAGE_SEPARATOR);
    this.held = [];
    this.waiting = this.send(text);
  }

  /**
   * At the end of the child's run: whether a steer is still waiting in the child (sent after its last look at
   * its queue), so the run must go on for it. Answers true once per such steer.
   */
  takeStranded(): boolean {
    if (!this.waiting) return false;
    this.waiting = false;
    return true;
  }

  /** Messages held for the next steer. */
  get heldCount(): number {
    return this.held.length;
  }
}

/*
 * Checks on text that is handed to a child pi (a task, or a message to a running task) before anything starts.
 * A NUL can travel neither in a command-line argument nor safely through pi's input, and the JSON child gets its
 * task as one argument, which Linux caps at 128 KiB (MAX_ARG_STRLEN); the RPC child has no such limit.
 */
/** Linux's limit on one command-line argument (32 pages of 4 KiB), including the terminating NUL. */
const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

function nulInTextMessage(what: "task" | "message"): string {
  return `The ${what} contains a NUL character (\\0), which cannot be passed to a subagent. Remove it and call again. Nothing was started.`;
}

function taskTooLongForJsonChildMessage(bytes: number): string {
  return `The task is ${bytes} bytes long; with PI_SUBAGENT_CHILD_MODE=json a task is passed as one command-line argument, which is limited to ${MAX_ARGUMENT_BYTES} bytes. Shorten the task, or unset PI_SUBAGENT_CHILD_MODE to use the default RPC child (no limit). Nothing was started.`;
}

/** Why `text` cannot be sent as a task or message, or undefined when it can. */
export function childTextProblem(text: string, what: "task" | "message"): string | undefined {
  return text.includes("\0") ? nulInTextMessage(what) : undefined;
}

/** Why a prompt cannot be given to a child of `mode`, or undefined when it can. */
export function promptProblem(prompt: string, mode: ChildMode): string | undefined {
  const nul = childTextProblem(prompt, "task");
  if (nul) return nul;
  if (mode === "json") {
    const bytes = Buffer.byteLength(prompt, "utf8");
    if (bytes > MAX_ARGUMENT_BYTES) return taskTooLongForJsonChildMessage(bytes);
  }
  return undefined;
}
