/**
 * Budget checks in the stream reducer: the same 100 MB of pi-like JSON-mode events (bench/runner.ts) reduced
 * with and without the runner's per-line budget check (src/run/stop-sequence.ts), in alternating passes.
 * The limits are set out of reach, so every turn is checked and none stops the run. Target: >= 100 MB/s either
 * way, and no measurable difference.
 */
import { fileURLToPath } from "node:url";
import { BudgetWatch } from "../src/run/stop-sequence.ts";
import { applyLine, initialRunState } from "../src/run/event-reducer.ts";
import { LineSplitter } from "../src/run/rpc.ts";
import { buildStream } from "./runner.ts";

const MB = 1024 * 1024;
const PASSES = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function reduce(chunks: readonly string[], withBudget: boolean): { seconds: number; turns: number; hits: number } {
  const state = initialRunState(0);
  const watch = withBudget ? BudgetWatch.of({ maxTurns: 1e9, maxTokens: 1e15, maxCost: 1e9 }) : undefined;
  let hits = 0;
  const splitter = new LineSplitter((line) => {
    applyLine(state, line, 1);
    if (watch?.afterLine(state)) hits++;
  });
  const started = process.hrtime.bigint();
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, turns: state.usage.turns, hits };
}

export async function runBudgetsSection(log: (line: string) => void = console.log): Promise<{ ok: boolean }> {
  const stream = buildStream(100);
  const inputMb = stream.bytes / MB;
  const without: number[] = [];
  const withBudget: number[] = [];
  let turns = 0;
  reduce(stream.chunks, true); // warm-up
  for (let pass = 0; pass < PASSES; pass++) {
    without.push(inputMb / reduce(stream.chunks, false).seconds);
    const budgeted = reduce(stream.chunks, true);
    if (budgeted.hits !== 0) throw new Error("an out-of-reach budget stopped the run");
    turns = budgeted.turns;
    withBudget.push(inputMb / budgeted.seconds);
  }
  const plain = median(without);
  const checked = median(withBudget);
  const ok = plain >= 100 && checked >= 100;
  const mark = (rate: number) => (rate >= 100 ? "ok" : "MISSED");
  log(
    `budget checks: ${inputMb.toFixed(1)} MB of pi JSON events (${stream.lines} lines, ${turns} turns checked), median of ${PASSES} alternating passes`,
  );
  log(
    `  without budgets  ${plain.toFixed(0)} MB/s (${without.map((r) => r.toFixed(0)).join(", ")})   target >= 100 MB/s  ${mark(plain)}`,
  );
  log(
    `  with budgets     ${checked.toFixed(0)} MB/s (${withBudget.map((r) => r.toFixed(0)).join(", ")})   target >= 100 MB/s  ${mark(checked)}`,
  );
  log(`  difference       ${(((checked - plain) / plain) * 100).toFixed(1)}% (within run-to-run noise when small)`);
  return { ok };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ok } = await runBudgetsSection();
  process.exitCode = ok ? 0 : 1;
}
