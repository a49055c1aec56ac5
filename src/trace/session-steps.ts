/**
 * A child's session file (pi's JSON lines) read as the steps of a trace: each model turn with its time, tokens
 * and cost, each tool call with its time and a short result, and each later prompt the child was given (a
 * steer, a verify round, the deliverable check's question). Pure: the caller hands in the file's text. A line
 * that is not a pi entry is skipped, so a file cut short by a crash still reads up to where it ends.
 */
import { oneLine } from "../shared/text.ts";

/** How much of a tool's arguments, its result or a turn's text a step keeps (the rest is never shown). */
export const STEP_TEXT_CHARS = 160;

interface TurnStep {
  kind: "turn";
  /** 1 for the child's first model call. */
  index: number;
  start: number;
  end: number;
  model?: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** pi's stop reason: `stop`, `toolUse`, `length`, `error`, `aborted`. */
  stopReason?: string;
  /** The start of the text the turn answered with (none for a turn that only called tools). */
  text?: string;
}

export interface ToolStep {
  kind: "tool";
  callId: string;
  name: string;
  /** The arguments as one short line (`command`, `path` or the JSON). */
  args: string;
  start: number;
  /** Absent while the tool still runs (or when the child ended before its result). */
  end?: number;
  isError?: boolean;
  result?: string;
  /** The tasks a `subagent` call started (its result's details name them): the nested children. */
  childTaskIds?: string[];
}

interface PromptStep {
  kind: "prompt";
  at: number;
  text: string;
}

export type TraceStep = TurnStep | ToolStep | PromptStep;

/** One line, at most `max` characters, with every terminal control sequence gone. */
function shortText(text: string, max = STEP_TEXT_CHARS): string {
  return oneLine(text, max);
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const numberOr = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) ? value : fallback;

/** An entry's time: its ISO `timestamp` (when pi wrote it). */
function entryTime(entry: Json): number | undefined {
  const parsed = typeof entry["timestamp"] === "string" ? Date.parse(entry["timestamp"]) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : undefined;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is Json => isObject(part) && part["type"] === "text" && typeof part["text"] === "string")
    .map((part) => part["text"] as string)
    .join("\n");
}

/** `bash: npm test`, `read: src/a.ts`; other tools their arguments as JSON. */
function argumentsLine(args: unknown): string {
  if (!isObject(args)) return "";
  for (const key of ["command", "path", "file_path", "pattern", "query", "url"]) {
    if (typeof args[key] === "string") return shortText(args[key] as string);
  }
  if (typeof args["agent"] === "string" && typeof args["task"] === "string")
    return shortText(`${args["agent"]}: ${args["task"]}`);
  return shortText(JSON.stringify(args));
}

/** The task ids a `subagent` result's details name: a single task's, or each part's of a batch or chain. */
function childIdsOf(details: unknown): string[] | undefined {
  if (!isObject(details)) return undefined;
  if (typeof details["taskId"] === "string") return [details["taskId"]];
  if (Array.isArray(details["parts"])) {
    const ids = details["parts"]
      .map((part) => (isObject(part) && typeof part["taskId"] === "string" ? part["taskId"] : undefined))
      .filter((id): id is string => id !== undefined);
    return ids.length > 0 ? ids : undefined;
  }
  return undefined;
}

function turnOf(message: Json, written: number, index: number): TurnStep {
  const usage = isObject(message["usage"]) ? message["usage"] : {};
  const cost = isObject(usage["cost"]) ? numberOr(usage["cost"]["total"], 0) : 0;
  // pi 1.x writes how long the call took; 0.73.1 only when it began (the message's time) and when it was written.
  const began = numberOr(message["timestamp"], written);
  const duration = numberOr(message["durationMs"], Math.max(0, written - began));
  const text = textOf(message["content"]);
  const turn: TurnStep = {
    kind: "turn",
    index,
    start: began,
    end: Math.max(began, began + duration),
    input: numberOr(usage["input"], 0),
    output: numberOr(usage["output"], 0),
    cacheRead: numberOr(usage["cacheRead"], 0),
    cacheWrite: numberOr(usage["cacheWrite"], 0),
    cost,
  };
  if (typeof message["provider"] === "string" && typeof message["model"] === "string")
    turn.model = `${message["provider"]}/${message["model"]}`;
  if (typeof message["stopReason"] === "string") turn.stopReason = message["stopReason"];
  if (text.trim() !== "") turn.text = shortText(text);
  return turn;
}

/**
 * The steps of one session file, in the order they happened. The first user message is the task itself and is
 * left out (the trace shows the task once, from the record).
 */
export function sessionSteps(fileText: string): TraceStep[] {
  const steps: TraceStep[] = [];
  const openTools = new Map<string, ToolStep>();
  let turns = 0;
  let sawTask = false;
  for (const line of fileText.split("\n")) {
    if (line.trim() === "") continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(entry) || entry["type"] !== "message" || !isObject(entry["message"])) continue;
    const message = entry["message"];
    const written = entryTime(entry) ?? numberOr(message["timestamp"], 0);
    switch (message["role"]) {
      case "user": {
        if (!sawTask) {
          sawTask = true;
          break;
        }
        steps.push({
          kind: "prompt",
          at: numberOr(message["timestamp"], written),
          text: shortText(textOf(message["content"])),
        });
        break;
      }
      case "assistant": {
        turns += 1;
        const turn = turnOf(message, written, turns);
        steps.push(turn);
        const content = Array.isArray(message["content"]) ? message["content"] : [];
        for (const part of content) {
          if (!isObject(part) || part["type"] !== "toolCall" || typeof part["id"] !== "string") continue;
          const tool: ToolStep = {
            kind: "tool",
            callId: part["id"],
            name: typeof part["name"] === "string" ? part["name"] : "tool",
            args: argumentsLine(part["arguments"]),
            start: turn.end,
          };
          openTools.set(tool.callId, tool);
          steps.push(tool);
        }
        break;
      }
      case "toolResult": {
        const callId = typeof message["toolCallId"] === "string" ? message["toolCallId"] : "";
        const tool = openTools.get(callId);
        if (!tool) break;
        openTools.delete(callId);
        const end = numberOr(message["timestamp"], written);
        tool.end = Math.max(tool.start, end);
        // pi 1.x says how long the tool ran; parallel calls then each get their own start.
        if (typeof message["durationMs"] === "number") tool.start = Math.max(tool.start, end - message["durationMs"]);
        tool.isError = message["isError"] === true;
        tool.result = shortText(textOf(message["content"]));
        const children = childIdsOf(message["details"]);
        if (children) tool.childTaskIds = children;
        break;
      }
    }
  }
  return steps;
}
