/**
 * The child-run stream reducer under load: 100 MB of pi-like JSON-mode events (a long run with streamed
 * thinking, text and tool calls, growing tool output and a final `agent_end` carrying the whole conversation)
 * go through `LineSplitter` + `applyLine` in 64 KB chunks, the way the runner receives a child's stdout.
 *
 * Reports throughput (MB of UTF-8 input per second; target >= 100 MB/s) and heap growth over the baseline
 * taken after a forced GC: the peak of `heapUsed` sampled after every chunk (garbage not yet collected
 * included, so an upper bound; target <= 64 MB) and what is still held after a final GC (the reducer's state).
 *
 * Run alone: `node --import tsx bench/runner.ts`.
 */
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { applyLine, initialRunState, type RunState } from "../src/run/event-reducer.ts";
import { DEFAULT_MAX_LINE_CHARS, LineSplitter } from "../src/run/rpc.ts";

const MB = 1024 * 1024;
const CHUNK_CHARS = 64 * 1024;

interface StreamReducerBenchOptions {
  /** Size of the generated stream in MB (default 100). */
  totalMb?: number;
  /** Timed passes over the stream; the median is reported (default 3). */
  passes?: number;
  minThroughputMbPerSec?: number;
  maxHeapGrowthMb?: number;
  log?: (line: string) => void;
}

interface StreamReducerFigures {
  inputMb: number;
  lines: number;
  throughputMbPerSec: number;
  /** Including the UTF-8 decoding of 64 KB byte chunks, as the runner's pipe does. */
  decodedThroughputMbPerSec: number;
  peakHeapGrowthMb: number;
  retainedHeapGrowthMb: number;
  /** Informational: peak heap growth while the whole input is one line (bounded by the splitter's limit). */
  singleLinePeakHeapGrowthMb: number;
  ok: boolean;
}

/** A GC function even when node was started without --expose-gc. */
function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

// ---- A pi-like event stream -------------------------------------------------------------------------------

const WORDS =
  "the function reads each entry, checks the cache and returns early when nothing changed; otherwise it rebuilds the index “in place” and logs ✓ done".split(
    " ",
  );

function prose(chars: number, seed: number): string {
  let text = "";
  for (let i = seed; text.length < chars; i++) text += `${WORDS[i % WORDS.length]} `;
  return text.slice(0, chars);
}

const usage = (input: number, output: number) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
  cost: {
    input: input / 1e6,
    output: (output * 2) / 1e6,
    cacheRead: 0,
    cacheWrite: 0,
    total: (input + output * 2) / 1e6,
  },
});

interface Content {
  type: string;
  [key: string]: unknown;
}

function assistant(content: Content[], stopReason: string, turn: number): Record<string, unknown> {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "fake",
    model: "fake-model",
    usage: usage(1000 + turn * 50, 400),
    stopReason,
    timestamp: 1796010001496 + turn,
  };
}

/**
 * One turn the way pi 0.73.1 prints it: thinking, text and a bash tool call streamed as `message_update` lines
 * that each repeat the whole partial message, then the tool's growing output as `tool_execution_update` lines.
 * Returns the lines and the turn's final messages (for `agent_end`).
 */
function turnLines(turn: number): { lines: string[]; messages: unknown[] } {
  const lines: string[] = [];
  const out = (event: Record<string, unknown>) => lines.push(JSON.stringify(event));
  const thinking = prose(800, turn);
  const text = prose(1500, turn + 7);
  const command = `grep -rn "cache" src/module-${turn}/ | head -50`;
  const args = { command };
  const toolOutput = Array.from(
    { length: 120 },
    (_, i) => `src/module-${turn}/file-${i}.ts:${i * 3}: const cache = new Map(); // ${prose(20, i)}`,
  ).join("\n");

  out({ type: "turn_start" });
  out({ type: "message_start", message: assistant([], "stop", turn) });
  const partial = (blocks: Content[]) => assistant(blocks, "stop", turn);
  for (let at = 0; at < thinking.length; at += 28) {
    const soFar = thinking.slice(0, at + 28);
    out({
      type: "message_update",
      assistantMessageEvent: {
        type: "thinking_delta",
        contentIndex: 0,
        delta: thinking.slice(at, at + 28),
        partial: partial([{ type: "thinking", thinking: soFar }]),
      },
    });
  }
  const thought: Content = { type: "thinking", thinking };
  out({
    type: "message_update",
    assistantMessageEvent: {
      type: "text_start",
      contentIndex: 1,
      partial: partial([thought, { type: "text", text: "" }]),
    },
  });
  for (let at = 0; at < text.length; at += 25) {
    const soFar = text.slice(0, at + 25);
    out({
      type: "message_update",
      assistantMessageEvent: {
        type: "text_delta",
        contentIndex: 1,
        delta: text.slice(at, at + 25),
        partial: partial([thought, { type: "text", text: soFar }]),
      },
    });
  }
  const said: Content = { type: "text", text };
  out({
    type: "message_update",
    assistantMessageEvent: { type: "text_end", contentIndex: 1, content: text, partial: partial([thought, said]) },
  });
  const argsJson = JSON.stringify(args);
  for (let at = 0; at < argsJson.length; at += 8) {
    const call: Content = {
      type: "toolCall",
      id: `call_${turn}`,
      name: "bash",
      arguments: {},
      partialArgs: argsJson.slice(0, at + 8),
    };
    out({
      type: "message_update",
      assistantMessageEvent: {
        type: "toolcall_delta",
        contentIndex: 2,
        delta: argsJson.slice(at, at + 8),
        partial: partial([thought, said, call]),
      },
    });
  }
  const call: Content = { type: "toolCall", id: `call_${turn}`, name: "bash", arguments: args };
  const final = assistant([thought, said, call], "toolUse", turn);
  out({
    type: "message_update",
    assistantMessageEvent: { type: "toolcall_end", contentIndex: 2, toolCall: call, partial: final },
  });
  out({ type: "message_end", message: final });

  out({ type: "tool_execution_start", toolCallId: `call_${turn}`, toolName: "bash", args });
  for (let end = 0; end < toolOutput.length; end += 600) {
    out({
      type: "tool_execution_update",
      toolCallId: `call_${turn}`,
      toolName: "bash",
      args,
      partialResult: { content: [{ type: "text", text: toolOutput.slice(0, end + 600) }], details: {} },
    });
  }
  const result = { content: [{ type: "text", text: toolOutput }] };
  out({ type: "tool_execution_end", toolCallId: `call_${turn}`, toolName: "bash", result, isError: false });
  const toolResult = {
    role: "toolResult",
    toolCallId: `call_${turn}`,
    toolName: "bash",
    content: result.content,
    isError: false,
    timestamp: 1,
  };
  out({ type: "message_start", message: toolResult });
  out({ type: "message_end", message: toolResult });
  out({ type: "turn_end", message: final, toolResults: [toolResult] });
  return { lines, messages: [final, toolResult] };
}

export interface GeneratedStream {
  /** The stream as 64 K-character strings (what the splitter gets from a utf8-decoded pipe). */
  chunks: string[];
  /** The same stream as 64 KB byte chunks (what the pipe delivers), cut without regard to characters. */
  byteChunks: Buffer[];
  bytes: number;
  lines: number;
}

function cutBytes(text: string): Buffer[] {
  const buffer = Buffer.from(text, "utf8");
  const pieces: Buffer[] = [];
  for (let at = 0; at < buffer.length; at += CHUNK_CHARS) pieces.push(buffer.subarray(at, at + CHUNK_CHARS));
  return pieces;
}

/** The stream cut into 64 KB chunks: a block of distinct turns, repeated up to `totalMb`, then `agent_end`. */
export function buildStream(totalMb: number): GeneratedStream {
  const head = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "01a22a89-c3cf-7753-8bf8-71bd9a5261c6",
      timestamp: "2026-11-30T03:40:01.360Z",
      cwd: "/work",
    }),
    JSON.stringify({ type: "agent_start" }),
  ];
  const turns = Array.from({ length: 24 }, (_, turn) => turnLines(turn));
  const block = `${turns.flatMap((t) => t.lines).join("\n")}\n`;
  const blockLines = turns.reduce((sum, t) => sum + t.lines.length, 0);
  const blockChunks: string[] = [];
  for (let at = 0; at < block.length; at += CHUNK_CHARS) blockChunks.push(block.slice(at, at + CHUNK_CHARS));
  const blockBytes = Buffer.byteLength(block);
  const repeats = Math.max(1, Math.round((totalMb * MB) / blockBytes));

  const answer = assistant([{ type: "text", text: prose(1500, 3) }], "stop", 999);
  const messages = [{ role: "user", content: [{ type: "text", text: "Task: find every cache" }], timestamp: 1 }];
  for (let i = 0; i < repeats; i++) messages.push(...(turns.flatMap((t) => t.messages) as typeof messages));
  messages.push(answer as (typeof messages)[number]);
  const tail = `${[
    JSON.stringify({ type: "turn_start" }),
    JSON.stringify({ type: "message_end", message: answer }),
    JSON.stringify({ type: "turn_end", message: answer, toolResults: [] }),
    JSON.stringify({ type: "agent_end", messages }),
  ].join("\n")}\n`;

  const headText = `${head.join("\n")}\n`;
  const chunks: string[] = [headText];
  for (let i = 0; i < repeats; i++) chunks.push(...blockChunks);
  for (let at = 0; at < tail.length; at += CHUNK_CHARS) chunks.push(tail.slice(at, at + CHUNK_CHARS));
  const blockByteChunks = cutBytes(block);
  const byteChunks = cutBytes(headText);
  for (let i = 0; i < repeats; i++) byteChunks.push(...blockByteChunks);
  byteChunks.push(...cutBytes(tail));
  const bytes = Buffer.byteLength(headText) + repeats * blockBytes + Buffer.byteLength(tail);
  return { chunks, byteChunks, bytes, lines: head.length + repeats * blockLines + 4 };
}

// ---- Measurement --------------------------------------------------------------------------------------------

function reduceAll(chunks: readonly string[], sample?: () => void): RunState {
  const state = initialRunState(0);
  const splitter = new LineSplitter((line) => applyLine(state, line, 1));
  for (const chunk of chunks) {
    splitter.push(chunk);
    sample?.();
  }
  splitter.end();
  return state;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function benchStreamReducer(options: StreamReducerBenchOptions = {}): Promise<StreamReducerFigures> {
  const log = options.log ?? console.log;
  const minThroughput = options.minThroughputMbPerSec ?? 100;
  const maxHeap = options.maxHeapGrowthMb ?? 64;
  const gc = gcFunction();

  const stream = buildStream(options.totalMb ?? 100);
  const inputMb = stream.bytes / MB;

  // Sanity: the reducer must have understood the stream, or the figures mean nothing.
  const check = reduceAll(stream.chunks);
  if (
    check.skippedLines !== 0 ||
    check.finalText.length !== 1500 ||
    check.toolCalls === 0 ||
    check.stopReason !== "stop"
  ) {
    throw new Error(
      `the reducer misread the generated stream: ${JSON.stringify({ skipped: check.skippedLines, tools: check.toolCalls })}`,
    );
  }

  // Heap: baseline after a full GC, peak sampled after every chunk, retained after a final GC.
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const state = reduceAll(stream.chunks, () => {
    const used = process.memoryUsage().heapUsed;
    if (used > peak) peak = used;
  });
  gc();
  const retained = process.memoryUsage().heapUsed - baseline;
  if (state.events === 0) throw new Error("no events");

  // Throughput: the median of a few timed passes without sampling.
  const rates: number[] = [];
  for (let pass = 0; pass < (options.passes ?? 3); pass++) {
    gc();
    const started = process.hrtime.bigint();
    reduceAll(stream.chunks);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    rates.push(inputMb / seconds);
  }

  // The runner's real input path: bytes from the pipe, decoded to strings, then split and reduced.
  const decodedRates: number[] = [];
  for (let pass = 0; pass < (options.passes ?? 3); pass++) {
    gc();
    const started = process.hrtime.bigint();
    const decoder = new StringDecoder("utf8");
    const decodedState = initialRunState(0);
    const splitter = new LineSplitter((line) => applyLine(decodedState, line, 1));
    for (const piece of stream.byteChunks) splitter.push(decoder.write(piece));
    splitter.push(decoder.end());
    splitter.end();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (decodedState.finalText !== check.finalText) throw new Error("decoding changed the result");
    decodedRates.push(inputMb / seconds);
  }

  // Informational: the worst a child can do, one endless line (100 MB of two-byte text without a newline).
  // LineSplitter keeps at most DEFAULT_MAX_LINE_CHARS of it, then only a head and tail.
  gc();
  const worstBaseline = process.memoryUsage().heapUsed;
  let worstPeak = worstBaseline;
  {
    const worstState = initialRunState(0);
    const splitter = new LineSplitter((line) => applyLine(worstState, line, 1));
    const piece = "✓".repeat(CHUNK_CHARS);
    splitter.push(
      '{"type":"tool_execution_update","toolCallId":"c","toolName":"bash","partialResult":{"content":[{"type":"text","text":"',
    );
    for (let sent = 0; sent < (options.totalMb ?? 100) * MB; sent += Buffer.byteLength(piece)) {
      splitter.push(piece);
      const used = process.memoryUsage().heapUsed;
      if (used > worstPeak) worstPeak = used;
    }
    splitter.push('"}]}}\n');
    splitter.end();
  }

  const figures: StreamReducerFigures = {
    inputMb,
    lines: stream.lines,
    throughputMbPerSec: median(rates),
    decodedThroughputMbPerSec: median(decodedRates),
    peakHeapGrowthMb: (peak - baseline) / MB,
    retainedHeapGrowthMb: retained / MB,
    singleLinePeakHeapGrowthMb: (worstPeak - worstBaseline) / MB,
    ok: false,
  };
  figures.ok = figures.throughputMbPerSec >= minThroughput && figures.peakHeapGrowthMb <= maxHeap;

  const mark = (good: boolean) => (good ? "ok" : "MISSED");
  log(
    `stream reducer: ${inputMb.toFixed(1)} MB of pi JSON events (${stream.lines} lines) in ${CHUNK_CHARS / 1024} KB chunks`,
  );
  log(
    `  throughput        ${figures.throughputMbPerSec.toFixed(0)} MB/s (median of ${rates.length}: ${rates.map((r) => r.toFixed(0)).join(", ")})` +
      `   target >= ${minThroughput} MB/s  ${mark(figures.throughputMbPerSec >= minThroughput)}`,
  );
  log(
    `  with utf8 decoding ${figures.decodedThroughputMbPerSec.toFixed(0)} MB/s (64 KB byte chunks through a StringDecoder first)`,
  );
  log(
    `  peak heap growth  ${figures.peakHeapGrowthMb.toFixed(1)} MB (uncollected garbage included)   target <= ${maxHeap} MB  ${mark(figures.peakHeapGrowthMb <= maxHeap)}`,
  );
  log(`  retained after GC ${figures.retainedHeapGrowthMb.toFixed(2)} MB (the run state)`);
  log(
    `  one endless line  ${figures.singleLinePeakHeapGrowthMb.toFixed(1)} MB peak heap growth (worst case, informational: ` +
      `${DEFAULT_MAX_LINE_CHARS / MB}M characters are kept before only a head and tail remain)`,
  );
  return figures;
}

/** The `runner` section of `npm run bench`. */
export async function runRunnerSection(): Promise<{ ok: boolean }> {
  const { ok } = await benchStreamReducer();
  return { ok };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ok } = await runRunnerSection();
  process.exitCode = ok ? 0 : 1;
}
