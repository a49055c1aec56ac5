/**
 * A scripted fake model: a small OpenAI-compatible chat-completions server on 127.0.0.1 that streams SSE.
 *
 * What it answers is decided, in order, by:
 *  1. rules registered by the test (matched against the request: system prompt, messages, model);
 *  2. a directive in the conversation's last user message: `@fake <json>` where json is one action or an
 *     array of actions; the n-th model call after that user message gets the n-th action, so one prompt can
 *     script a whole turn sequence (a tool call, then the final text);
 *  3. defaults: after tool results, a text that quotes them; otherwise "ok".
 *
 * Every request is logged (in memory, and as JSONL when a log path is given) so tests can assert on what the
 * model was sent, and tests can wait for a request to arrive instead of sleeping.
 */
import { EventEmitter } from "node:events";
import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { waitForMatch } from "./wait-for-match.ts";

interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface FakeAction {
  /** Assistant text, streamed in a few chunks. */
  text?: string;
  /** Tool calls; several make a parallel batch. */
  toolCalls?: FakeToolCall[];
  /** Wait this long before the first byte (simulates a slow model; a long one makes the caller idle). */
  delayMs?: number;
  /** Characters per streamed text chunk (default 40); large for a huge answer, which pi's JSON mode repeats whole in every delta. */
  chunkChars?: number;
  /** Wait this long between streamed text chunks. */
  chunkDelayMs?: number;
  /** Stream each tool call's name first and its arguments this long after (as a real model streams a long task). */
  toolCallArgumentsDelayMs?: number;
  /** Token usage reported in the final chunk. */
  usage?: { input: number; output: number };
  /**
   * A broken usage report instead (a provider's bug): these fields as the final chunk's `usage`, as given (negative
   * or non-numeric values), or `"none"` for a stream with no usage at all.
   */
  badUsage?: Record<string, unknown> | "none";
  /** Answer with an HTTP error instead of a stream. */
  httpError?: { status: number; message: string };
  /** Override the finish reason ("length" simulates a truncated answer). */
  finishReason?: "stop" | "length" | "tool_calls";
}

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface FakeRequest {
  seq: number;
  at: number;
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: string[];
  reasoningEffort?: string;
  /** Text of the last message (user, tool or assistant). */
  lastText: string;
  lastRole: string;
  /** The request's `Authorization` header: the key or OAuth access token the caller sent. */
  authorization?: string;
  /** The action that was answered (after rules and directives). */
  action?: FakeAction;
  /** The request's body exactly as it was sent (a warm child's must be a cold one's, byte for byte after ids). */
  body: string;
}

export interface FakeRule {
  name?: string;
  when: (req: FakeRequest) => boolean;
  /** A reply may wait (for example for another request: a barrier that proves two calls overlap). */
  reply: FakeAction | ((req: FakeRequest) => FakeAction | Promise<FakeAction>);
  /** How many requests this rule may answer (unlimited when absent). */
  times?: number;
}

export function messageText(message: ChatMessage | undefined): string {
  if (!message) return "";
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (part && typeof part === "object" && "text" in part && typeof part.text === "string") return part.text;
        return "";
      })
      .join("");
  }
  return "";
}

/** Reads one JSON value that starts at `start` in `text`, honouring strings, so nested directives work. */
function readJsonValue(text: string, start: number): { value: unknown; end: number } | undefined {
  let i = start;
  while (i < text.length && /\s/.test(text[i] ?? "")) i++;
  const open = text[i];
  if (open !== "{" && open !== "[") return undefined;
  let depth = 0;
  let inString = false;
  for (let j = i; j < text.length; j++) {
    const ch = text[j];
    if (inString) {
      if (ch === "\\") j++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) {
        try {
          return { value: JSON.parse(text.slice(i, j + 1)), end: j + 1 };
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

const DIRECTIVE = "@fake ";

/** Builds a directive to put in a prompt (or in a subagent task) that scripts the model's next calls. */
export function fakeDirective(actions: FakeAction | FakeAction[]): string {
  return `${DIRECTIVE}${JSON.stringify(actions)}`;
}

function directiveAction(messages: ChatMessage[]): FakeAction | undefined {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") {
      lastUser = i;
      break;
    }
  }
  if (lastUser < 0) return undefined;
  const text = messageText(messages[lastUser]);
  const at = text.indexOf(DIRECTIVE);
  if (at < 0) return undefined;
  const parsed = readJsonValue(text, at + DIRECTIVE.length);
  if (!parsed) return undefined;
  const steps = (Array.isArray(parsed.value) ? parsed.value : [parsed.value]) as FakeAction[];
  const callsSinceUser = messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
  return steps[callsSinceUser];
}

function defaultAction(req: FakeRequest): FakeAction {
  if (req.lastRole === "tool") {
    const results: string[] = [];
    for (let i = req.messages.length - 1; i >= 0 && req.messages[i]?.role === "tool"; i--) {
      results.unshift(messageText(req.messages[i]));
    }
    return { text: `Tool results:\n${results.join("\n")}` };
  }
  return { text: "ok" };
}

export class FakeModel {
  readonly requests: FakeRequest[] = [];
  private readonly rules: FakeRule[] = [];
  private readonly events = new EventEmitter();
  private readonly openResponses = new Set<ServerResponse>();
  private server: Server | undefined;
  private seq = 0;
  port = 0;

  constructor(private readonly logPath?: string) {
    this.events.setMaxListeners(100);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    // Node closes an idle keep-alive socket after 5 s; a pi whose next request (after a child ran for about that
    // long, on a loaded machine) reuses the socket just then fails with "other side closed". The client closes first.
    this.server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.openResponses) res.destroy();
    this.openResponses.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Adds a rule; rules added first win. */
  on(rule: FakeRule): this {
    this.rules.push(rule);
    return this;
  }

  clearRules(): void {
    this.rules.length = 0;
  }

  /** Forgets rules and logged requests (between tests sharing one server). */
  reset(): void {
    this.clearRules();
    this.requests.length = 0;
  }

  /** Resolves with the first request (already logged or still to come) that matches. */
  waitForRequest(
    predicate: (req: FakeRequest) => boolean,
    timeoutMs = 60_000,
    what = "a matching request",
  ): Promise<FakeRequest> {
    return waitForMatch(
      this.requests,
      this.events,
      "request",
      predicate,
      timeoutMs,
      () => `fake model: timed out after ${timeoutMs} ms waiting for ${what}; saw ${this.requests.length} request(s)`,
    );
  }

  private async pickAction(req: FakeRequest): Promise<FakeAction> {
    for (const rule of this.rules) {
      if (rule.times !== undefined && rule.times <= 0) continue;
      if (!rule.when(req)) continue;
      if (rule.times !== undefined) rule.times--;
      return typeof rule.reply === "function" ? rule.reply(req) : rule.reply;
    }
    return directiveAction(req.messages) ?? defaultAction(req);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: {
      model?: string;
      messages?: ChatMessage[];
      tools?: Array<{ function?: { name?: string } }>;
      reasoning_effort?: string;
    };
    const text = Buffer.concat(chunks).toString("utf8");
    try {
      body = JSON.parse(text);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const messages = body.messages ?? [];
    const last = messages[messages.length - 1];
    const logged: FakeRequest = {
      seq: ++this.seq,
      at: Date.now(),
      model: body.model ?? "",
      system: messages
        .filter((m) => m.role === "system" || m.role === "developer")
        .map(messageText)
        .join("\n"),
      messages,
      tools: (body.tools ?? []).map((t) => t.function?.name ?? ""),
      reasoningEffort: body.reasoning_effort,
      lastText: messageText(last),
      lastRole: last?.role ?? "",
      authorization: req.headers.authorization,
      body: text,
    };
    // Logged (and announced) before the reply is chosen, so a rule's reply can wait for later requests.
    this.requests.push(logged);
    if (this.logPath) appendFileSync(this.logPath, `${JSON.stringify(logged)}\n`);
    this.events.emit("request", logged);
    const action = await this.pickAction(logged);
    logged.action = action;
    await this.respond(res, logged, action);
  }

  private async respond(res: ServerResponse, req: FakeRequest, action: FakeAction): Promise<void> {
    this.openResponses.add(res);
    let closed = false;
    res.on("close", () => {
      closed = true;
      this.openResponses.delete(res);
    });
    const wait = (ms: number) =>
      new Promise<void>((resolve) => {
        if (ms <= 0 || closed) return resolve();
        const timer = setTimeout(resolve, ms);
        res.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    await wait(action.delayMs ?? 0);
    if (closed) return;
    if (action.httpError) {
      res.writeHead(action.httpError.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: action.httpError.message, type: "fake_error" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const id = `chatcmpl-fake-${req.seq}`;
    const send = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, unknown>) => {
      if (closed) return;
      const chunk: Record<string, unknown> = {
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: req.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      };
      if (usage) chunk.usage = usage;
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    send({ role: "assistant" }, null);
    if (action.text) {
      const size = Math.max(1, action.chunkChars ?? 40);
      const parts: string[] = [];
      for (let at = 0; at < action.text.length; at += size) parts.push(action.text.slice(at, at + size));
      for (const part of parts) {
        send({ content: part }, null);
        await wait(action.chunkDelayMs ?? 0);
        if (closed) return;
      }
    }
    const argumentsDelay = action.toolCallArgumentsDelayMs ?? 0;
    for (const [index, call] of (action.toolCalls ?? []).entries()) {
      const id = `call_${req.seq}_${index}`;
      const args = JSON.stringify(call.arguments);
      if (argumentsDelay > 0) {
        send({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }, null);
        await wait(argumentsDelay);
        if (closed) return;
        send({ tool_calls: [{ index, function: { arguments: args } }] }, null);
      } else {
        send({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: args } }] }, null);
      }
    }
    const finish = action.finishReason ?? (action.toolCalls?.length ? "tool_calls" : "stop");
    const usage = action.usage ?? { input: 100, output: 20 };
    if (action.badUsage === "none") send({}, finish);
    else
      send(
        {},
        finish,
        action.badUsage ?? {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      );
    if (!closed) res.end("data: [DONE]\n\n");
  }
}
