/**
 * A child's event stream into a run's state: the types, the reducer, its tool summaries and phase labels.
 */
import type { BudgetHit } from "../budget/limits.ts";
import type { LoopHit } from "./loop-guard.ts";
import type { PartialOutput } from "./outcome.ts";
import { oneLine, emptyUsage, type UsageTotals } from "../shared/text.ts";
import type { SplitLine } from "./rpc.ts";
import { readTurnUsage } from "../budget/usage.ts";
import type { DeliverableNote } from "./deliverable.ts";
import type { VerifyReport } from "./verify.ts";

export type { StopCause } from "../shared/run-settings.ts";

/** What the child is doing right now, as shown in the widget and progress updates. */
export type RunPhase = "starting" | "thinking" | "writing" | "tool" | "waiting" | "retrying" | "done";

interface ToolActivity {
  name: string;
  /** A short, one-line summary of the arguments (a command, a path, a pattern). */
  summary: string;
  at: number;
}

/** One line of what the child did, for the live watch view (bounded list). */
export interface ActivityLine {
  at: number;
  kind: "text" | "tool" | "tool-result" | "error" | "retry" | "message";
  text: string;
}

/** The live state of one child run, built from its JSON event stream. Bounded whatever the child prints. */
export interface RunState {
  phase: RunPhase;
  /** The tool running now, if any. */
  currentTool?: ToolActivity;
  /** The last tool started (kept after it ends). */
  lastTool?: ToolActivity;
  /** The arguments of the last tool started, as the child gave them (the loop guard compares them). */
  lastToolArgs?: unknown;
  toolCalls: number;
  usage: UsageTotals;
  provider?: string;
  model?: string;
  /** Stop reason of the last assistant message (`stop`, `toolUse`, `length`, `error`, `aborted`, ...). */
  stopReason?: string;
  /** Error message of the last assistant message, or of a retry that gave up. */
  errorMessage?: string;
  /** Text of the last assistant message: the run's final output once the child exits. */
  finalText: string;
  /** The last non-empty assistant text (kept when a later, aborted message has none): a stopped run's partial text. */
  lastText: string;
  /** The last few KB of streamed assistant text (for the watch view), bounded. */
  streamTail: string;
  /** Recent activity lines (bounded). */
  activity: ActivityLine[];
  /**
   * True while pi waits out a retry delay: from `auto_retry_start` (or `agent_end` with `willRetry`) until the
   * retried request starts (`agent_start`/`turn_start`) or `auto_retry_end`.
   */
  retryPending: boolean;
  /**
   * When the child's last model call failed (an assistant `message_end` with stop reason `error`), until pi says
   * what follows (`auto_retry_start`, `agent_end` with `willRetry: false`, a new request): pi may still be about to
   * retry, so that moment is not the start of idleness.
   */
  failedCallAt?: number;
  retryAttempts: number;
  /** Session id from the stream's header line. */
  sessionId?: string;
  /** When the child last produced an event (ms since epoch). */
  lastEventAt: number;
  events: number;
  /** Lines that were not valid JSON events (skipped). */
  skippedLines: number;
  /** The first few skipped lines, each cut to SKIPPED_SAMPLE_CHARS (for the record). */
  skippedSample: string[];
  /** Characters of the messages seen so far (task, answers, tool results): the base of a usage estimate. */
  contextChars: number;
  /** Turns whose usage report was unusable, so their tokens are estimated. */
  estimatedTurns: number;
  /** Turns whose cost is unknown (an unusable report, or a cost that is negative or not a number). */
  unknownCostTurns: number;
}

/** The four outcomes the spec names, and `stopped`: a budget (maxTurns, maxTokens, maxCost) ended the run. */
export type RunStatus = "succeeded" | "failed" | "timed out" | "cancelled" | "stopped";

export interface RunOutcome {
  status: RunStatus;
  exitCode: number | null;
  signal: string | null;
  /** The child's stop reason, or ours: `activity_timeout`, `hard_timeout`, `aborted`, `killed_on_shutdown`. */
  stopReason?: string;
  errorMessage?: string;
  /** The final output: the last assistant message's text. */
  output: string;
  usage: UsageTotals;
  model?: string;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  /** The last few KB of the child's stderr. */
  stderrTail: string;
  /** Set when a budget stopped the run: which one and its limit. */
  budgetHit?: BudgetHit;
  /** Set when the loop guard stopped the run: the repeated call and how often. */
  loopHit?: LoopHit;
  /** Set when the run was stopped from outside: what it had produced by then. */
  partial?: PartialOutput;
  /** One line per question of the child that nobody could answer (`asked "…": no one to answer (print mode)`). */
  unanswered?: string[];
  /** Set when some turns' usage was unusable: which were estimated, whose cost is unknown. */
  usageNote?: string;
  /** Set when the child's stdout carried lines that were not pi events: how many, and the first few (cut short). */
  skippedOutput?: SkippedOutput;
  /** Set by the deliverable check (src/run/settle-checks.ts) on a run that succeeded: what it found or did. */
  deliverable?: DeliverableNote;
  /** Set by `verify` (src/run/settle-checks.ts) when the agent or call has a check: what it found. */
  verify?: VerifyReport;
}

export interface SkippedOutput {
  lines: number;
  sample: string[];
}

/** Which argument best says what a call does, for pi's built-in tools. */
const KEY_ARGUMENT: Record<string, string[]> = {
  bash: ["command"],
  read: ["path", "file_path"],
  write: ["path", "file_path"],
  edit: ["path", "file_path"],
  grep: ["pattern"],
  find: ["pattern", "path"],
  ls: ["path"],
  subagent: ["agent"],
};

/** A short, one-line summary of a tool call's arguments (a command, a path, a pattern). */
export function summarizeToolArgs(toolName: string, args: unknown, max: number = 60): string {
  if (!args || typeof args !== "object") return "";
  const record = args as Record<string, unknown>;
  for (const key of KEY_ARGUMENT[toolName] ?? []) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return oneLine(value, max);
  }
  for (const value of Object.values(record)) {
    if (typeof value === "string" && value.trim()) return oneLine(value, max);
  }
  return "";
}

/** A short label for what a run is doing: `thinking`, `writing`, `⚡ bash: npm test`, `retrying (2)`. */
export function phaseLabel(state: Pick<RunState, "phase" | "currentTool" | "retryAttempts">): string {
  switch (state.phase) {
    case "starting":
      return "starting";
    case "thinking":
      return "thinking";
    case "writing":
      return "writing";
    case "tool": {
      const tool = state.currentTool;
      if (!tool) return "⚡ tool";
      return tool.summary ? `⚡ ${tool.name}: ${tool.summary}` : `⚡ ${tool.name}`;
    }
    case "waiting":
      return "waiting for the model";
    case "retrying":
      return `retrying (${state.retryAttempts})`;
    case "done":
      return "done";
  }
}

/*
 * Turns a child pi's JSON-mode event stream (`pi --mode json -p`) into a RunState.
 *
 * pi repeats the whole partial message in every `message_update` and the whole output so far in every
 * `tool_execution_update`, so the stream grows much faster than the answer. To stay fast and bounded, the
 * event type is read from the line's prefix and only the few events that matter are parsed in full; streaming
 * deltas are read straight out of the line without parsing the partial message behind them. Anything that is
 * not a JSON event is skipped and counted.
 */
export const STREAM_TAIL_CHARS = 4096;
export const MAX_ACTIVITY_LINES = 50;

export function initialRunState(now: number): RunState {
  return {
    phase: "starting",
    toolCalls: 0,
    usage: emptyUsage(),
    finalText: "",
    lastText: "",
    streamTail: "",
    activity: [],
    retryPending: false,
    retryAttempts: 0,
    lastEventAt: now,
    events: 0,
    skippedLines: 0,
    skippedSample: [],
    contextChars: 0,
    estimatedTurns: 0,
    unknownCostTurns: 0,
  };
}

const TYPE_PREFIX = '{"type":"';

/** Whether the last character that is not whitespace is '}' (without copying the line). */
function endsWithBrace(text: string): boolean {
  for (let i = text.length - 1; i >= 0; i--) {
    const ch = text.charCodeAt(i);
    if (ch !== 32 && ch !== 9 && ch !== 13) return ch === 125;
  }
  return false;
}

/** Whether a line holds only whitespace (checked without copying it, as trim would). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 32 && ch !== 9 && ch !== 13) return false;
  }
  return true;
}

/** The event type from a line that starts the way pi writes events, or undefined. */
function peekType(text: string): string | undefined {
  if (!text.startsWith(TYPE_PREFIX)) return undefined;
  const end = text.indexOf('"', TYPE_PREFIX.length);
  return end < 0 ? undefined : text.slice(TYPE_PREFIX.length, end);
}

/** Reads the JSON string literal that starts at `quote` (the opening quote); undefined if malformed. */
function readStringLiteral(text: string, quote: number): string | undefined {
  for (let i = quote + 1; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 92 /* backslash */) {
      i++;
      continue;
    }
    if (ch === 34 /* quote */) {
      try {
        return JSON.parse(text.slice(quote, i + 1)) as string;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

const ASSISTANT_EVENT_KEY = '"assistantMessageEvent":{"type":"';
const DELTA_KEY = '"delta":';

function pushActivity(state: RunState, line: ActivityLine): void {
  state.activity.push(line);
  if (state.activity.length > MAX_ACTIVITY_LINES) state.activity.splice(0, state.activity.length - MAX_ACTIVITY_LINES);
}

function appendStreamText(state: RunState, text: string): void {
  const joined = state.streamTail + text;
  state.streamTail = joined.length > STREAM_TAIL_CHARS ? joined.slice(-STREAM_TAIL_CHARS) : joined;
}

/** Fast path for `message_update`: phase and text deltas without parsing the partial message. */
function applyMessageUpdate(state: RunState, text: string): boolean {
  const at = text.indexOf(ASSISTANT_EVENT_KEY);
  if (at < 0 || at > 200) return false;
  const typeStart = at + ASSISTANT_EVENT_KEY.length;
  const typeEnd = text.indexOf('"', typeStart);
  if (typeEnd < 0) return false;
  const eventType = text.slice(typeStart, typeEnd);
  if (eventType.startsWith("thinking")) {
    state.phase = "thinking";
    return true;
  }
  if (eventType.startsWith("toolcall")) {
    state.phase = "writing";
    return true;
  }
  if (eventType === "text_start") {
    state.phase = "writing";
    if (state.streamTail && !state.streamTail.endsWith("\n")) appendStreamText(state, "\n");
    return true;
  }
  if (eventType === "text_delta") {
    state.phase = "writing";
    const deltaAt = text.indexOf(DELTA_KEY, typeEnd);
    if (deltaAt < 0 || deltaAt > typeEnd + 64) return false;
    const delta = readStringLiteral(text, deltaAt + DELTA_KEY.length);
    if (delta === undefined) return false;
    appendStreamText(state, delta);
    return true;
  }
  return true;
}

interface ContentBlock {
  type?: string;
  text?: string;
}

interface AssistantMessage {
  role?: string;
  content?: ContentBlock[] | string;
  provider?: string;
  model?: string;
  stopReason?: string;
  errorMessage?: string;
  usage?: {
    input?: number;
    output?: number;
    cacheRead?: number;
    cacheWrite?: number;
    totalTokens?: number;
    cost?: { total?: number };
  };
}

function textOf(message: AssistantMessage): string {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? [])
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("");
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** The characters of a message's content, for the estimate of a turn whose usage report is unusable. */
function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  return content === undefined ? 0 : JSON.stringify(content).length;
}

/**
 * pi's reply to a stop that lands between two calls: an `aborted` message with no content and no usage, made
 * without calling the model. It is not a turn (the budget never counted it either).
 */
function isAbortWithoutCall(message: AssistantMessage): boolean {
  if (message.stopReason !== "aborted" || textOf(message).trim() !== "") return false;
  if (Array.isArray(message.content) && message.content.some((block) => block.type !== "text")) return false;
  const usage = message.usage ?? {};
  return num(usage.input) + num(usage.output) + num(usage.cacheRead) + num(usage.cacheWrite) === 0;
}

function applyAssistantMessageEnd(state: RunState, message: AssistantMessage, now: number): void {
  const answerChars = contentChars(message.content);
  const counted = !isAbortWithoutCall(message);
  if (counted) {
    const answered = message.stopReason !== "error" && message.stopReason !== "aborted";
    const turn = readTurnUsage(message.usage, { contextChars: state.contextChars, answerChars }, answered);
    state.usage.turns += 1;
    state.usage.input += turn.input;
    state.usage.output += turn.output;
    state.usage.cacheRead += turn.cacheRead;
    state.usage.cacheWrite += turn.cacheWrite;
    state.usage.cost += turn.cost;
    if (turn.estimated) state.estimatedTurns += 1;
    if (!turn.costKnown) state.unknownCostTurns += 1;
    const usage = message.usage ?? {};
    const context = turn.estimated
      ? turn.input + turn.output
      : num(usage.totalTokens) || turn.input + turn.output + turn.cacheRead + turn.cacheWrite;
    if (context > 0) state.usage.contextTokens = context;
  }
  state.contextChars += answerChars;
  if (message.provider) state.provider = message.provider;
  if (message.model) state.model = message.model;
  state.stopReason = message.stopReason;
  state.errorMessage = message.errorMessage || undefined;
  state.finalText = textOf(message);
  if (state.finalText.trim()) state.lastText = state.finalText;
  state.phase = message.stopReason === "toolUse" ? "tool" : "waiting";
  state.failedCallAt = message.stopReason === "error" ? now : undefined;
  if (message.stopReason === "error") {
    pushActivity(state, { at: now, kind: "error", text: oneLine(message.errorMessage ?? "model error", 200) });
  } else if (state.finalText.trim()) {
    pushActivity(state, { at: now, kind: "text", text: oneLine(state.finalText, 200) });
  }
}

/** Applies one parsed event. Mutates and returns `state` (the reducer owns it; callers only read). */
export function applyEvent(state: RunState, event: Record<string, unknown>, now: number): RunState {
  state.events += 1;
  state.lastEventAt = now;
  switch (event.type) {
    case "session":
      if (typeof event.id === "string") state.sessionId = event.id;
      break;
    case "agent_start":
    case "turn_start":
      state.phase = "thinking";
      // A pending retry has now started its request: from here on, silence is a hang again.
      state.retryPending = false;
      state.failedCallAt = undefined;
      break;
    case "message_update": {
      const update = event.assistantMessageEvent as { type?: string; delta?: unknown } | undefined;
      const type = update?.type ?? "";
      if (type.startsWith("thinking")) state.phase = "thinking";
      else if (type === "text_delta" && typeof update?.delta === "string") {
        state.phase = "writing";
        appendStreamText(state, update.delta);
      } else if (type.startsWith("text") || type.startsWith("toolcall")) state.phase = "writing";
      break;
    }
    case "message_end": {
      const message = event.message as AssistantMessage | undefined;
      if (message?.role === "assistant") applyAssistantMessageEnd(state, message, now);
      // The task, a steer, a tool's result: what the next call reads, for the estimate of unusable usage.
      else if (message) state.contextChars += contentChars(message.content);
      break;
    }
    case "tool_execution_start": {
      const name = typeof event.toolName === "string" ? event.toolName : "tool";
      const tool = { name, summary: summarizeToolArgs(name, event.args), at: now };
      state.currentTool = tool;
      state.lastTool = tool;
      state.lastToolArgs = event.args;
      state.toolCalls += 1;
      state.phase = "tool";
      pushActivity(state, { at: now, kind: "tool", text: tool.summary ? `${name}: ${tool.summary}` : name });
      break;
    }
    case "tool_execution_end":
      applyToolEnd(state, typeof event.toolName === "string" ? event.toolName : "tool", event.isError === true, now);
      break;
    case "agent_end":
      state.phase = "waiting";
      if (event.willRetry === true) state.retryPending = true;
      // pi 1.x says outright that no retry follows; pi 0.73.1 says nothing here (its auto_retry_start comes next).
      if (event.willRetry === false) state.failedCallAt = undefined;
      break;
    case "auto_retry_start":
      state.failedCallAt = undefined;
      state.retryPending = true;
      state.retryAttempts += 1;
      state.phase = "retrying";
      pushActivity(state, {
        at: now,
        kind: "retry",
        text: oneLine(
          `retrying (${num(event.attempt)}/${num(event.maxAttempts)}): ${String(event.errorMessage ?? "")}`,
          200,
        ),
      });
      break;
    case "auto_retry_end":
      state.retryPending = false;
      state.failedCallAt = undefined;
      if (event.success === false && typeof event.finalError === "string") state.errorMessage = event.finalError;
      break;
    default:
      break;
  }
  return state;
}

function applyToolEnd(state: RunState, toolName: string, isError: boolean, now: number): void {
  state.currentTool = undefined;
  state.phase = "waiting";
  if (isError) pushActivity(state, { at: now, kind: "tool-result", text: `${toolName} failed` });
}

/** Events whose content we never need (they repeat what other events carry). */
const SKIPPED_TYPES = new Set(["message_start", "turn_end", "tool_execution_update"]);

/** How many skipped lines are kept as a sample for the record, and how much of each. */
const SKIPPED_SAMPLE_LINES = 5;
const SKIPPED_SAMPLE_CHARS = 200;

/**
 * Skipped lines after which a line without pi's exact event prefix is no longer tried with the full parser: a
 * flood of brace-wrapped noise then costs no failed parse (an exception) per line.
 */
const FULL_PARSE_SKIP_LIMIT = 1000;

/** Events the reducer reads in full; any other type is counted without being parsed. */
const APPLIED_TYPES = new Set([
  "session",
  "agent_start",
  "turn_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_end",
  "agent_end",
  "auto_retry_start",
  "auto_retry_end",
]);

/** Counts a line that is not an event and keeps the first few (cut short) as a sample: constant work per line. */
function skipLine(state: RunState, text: string): RunState {
  state.skippedLines += 1;
  if (state.skippedSample.length < SKIPPED_SAMPLE_LINES) state.skippedSample.push(text.slice(0, SKIPPED_SAMPLE_CHARS));
  return state;
}

/**
 * Applies one line of the child's stdout. Malformed or partial lines are skipped and counted. pi writes every
 * event as one JSON object whose first key is `type`, so a line that does not start that way (text a tool
 * wrote to pi's stdout) is dropped without being parsed: a flood of such lines costs a few comparisons each, not
 * a failed JSON.parse (an exception) each.
 */
export function applyLine(state: RunState, line: SplitLine, now: number): RunState {
  const text = line.text ?? line.head ?? "";
  const type = peekType(text);
  if (type === undefined) {
    if (text.length === 0 || isBlank(text)) return state;
    // JSON written another way ({ "type" : …) still gets the full parser, until the stream has shown it is noise.
    if (!mayBeJsonObject(line) || state.skippedLines >= FULL_PARSE_SKIP_LIMIT) return skipLine(state, text);
    return parseAndApply(state, line.text as string, now);
  }
  if (SKIPPED_TYPES.has(type)) {
    state.events += 1;
    state.lastEventAt = now;
    return state;
  }
  if (type === "message_update" && applyMessageUpdate(state, text)) {
    state.events += 1;
    state.lastEventAt = now;
    return state;
  }
  if (type === "agent_end") {
    // The whole conversation rides along; only a trailing willRetry flag matters (pi 0.73.1 has none).
    const tail = (line.text ?? line.tail ?? "").slice(-64);
    const willRetry = tail.includes('"willRetry":true') ? true : tail.includes('"willRetry":false') ? false : undefined;
    return applyEvent(state, { type, willRetry }, now);
  }
  if (type === "tool_execution_end") {
    const nameMatch = /"toolName":"([^"]*)"/.exec(text.slice(0, 300));
    const end = line.text ?? line.tail ?? "";
    state.events += 1;
    state.lastEventAt = now;
    applyToolEnd(state, nameMatch?.[1] ?? "tool", end.slice(-32).includes('"isError":true'), now);
    return state;
  }
  if (!APPLIED_TYPES.has(type)) {
    state.events += 1;
    state.lastEventAt = now;
    return state;
  }
  if (line.text === undefined) {
    // An oversized line that is not a streaming event cannot be parsed from its head and tail.
    state.skippedLines += 1;
    if (type === "message_end") state.contextChars += line.length;
    if (type === "message_end" && /"role":"assistant"/.test(text.slice(0, 200))) {
      // The last answer was too large to keep: never report the previous message's text as the result.
      state.finalText = "";
      state.errorMessage = `the subagent's final answer (${line.length} characters) was too large to keep; read it in its session file`;
    }
    return state;
  }
  // A whole JSON object ends with '}': a cut line is dropped without a failed parse.
  if (!endsWithBrace(line.text)) return skipLine(state, text);
  return parseAndApply(state, line.text, now);
}

/** Whether a whole line could be one JSON object: it starts with '{' and ends with '}' (whitespace aside). */
function mayBeJsonObject(line: SplitLine): boolean {
  const text = line.text;
  if (text === undefined) return false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 32 && ch !== 9 && ch !== 13) return ch === 123 && endsWithBrace(text);
  }
  return false;
}

function parseAndApply(state: RunState, text: string, now: number): RunState {
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    return skipLine(state, text);
  }
  if (!event || typeof event !== "object" || typeof (event as { type?: unknown }).type !== "string")
    return skipLine(state, text);
  return applyEvent(state, event as Record<string, unknown>, now);
}
