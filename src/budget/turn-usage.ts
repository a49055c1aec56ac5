/**
 * One turn's usage as the budgets may trust it. A provider's report can be broken (negative counts, text, or no
 * report at all, which pi passes on as zeros or nulls); taken as it is, such a report keeps `maxTokens` and
 * `maxCost` from ever tripping. A report is usable only when its token counts are numbers ≥ 0 and not all zero
 * (every real model call reads some input); otherwise the turn's tokens are estimated from the sizes of the
 * messages the child's stream showed, and its cost is unknown. Pure.
 */
import { counted } from "../shared/format.ts";

/** Characters per token of the estimate: the usual rough rule for English text and code. */
export const CHARS_PER_TOKEN = 4;

export interface TurnUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** The tokens are an estimate: the provider's report was not usable. */
  estimated: boolean;
  /** The cost is known (false with an estimate, or a cost that is negative or not a number). */
  costKnown: boolean;
}

/** What a turn's estimate is made from: characters of context before the answer, and of the answer itself. */
export interface TurnSizes {
  contextChars: number;
  answerChars: number;
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

export function estimateTokens(chars: number): number {
  return Math.ceil(Math.max(0, chars) / CHARS_PER_TOKEN);
}

/**
 * The turn's usage from pi's `usage` object of an assistant message (any shape) and the sizes seen. A call that
 * failed or was aborted (`answered` false) without a usable report is taken as costing nothing, as providers
 * bill it, rather than estimated.
 */
export function readTurnUsage(raw: unknown, sizes: TurnSizes, answered = true): TurnUsage {
  const usage = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const cost = (usage.cost && typeof usage.cost === "object" ? (usage.cost as Record<string, unknown>).total : undefined);
  const cacheRead = isCount(usage.cacheRead) ? usage.cacheRead : 0;
  const cacheWrite = isCount(usage.cacheWrite) ? usage.cacheWrite : 0;
  const { input, output } = usage;
  const usable = isCount(input) && isCount(output) && input + output + cacheRead + cacheWrite > 0;
  if (!usable && !answered) return { input: 0, output: 0, cacheRead, cacheWrite, cost: 0, estimated: false, costKnown: true };
  if (!usable) {
    return {
      input: estimateTokens(sizes.contextChars),
      output: estimateTokens(sizes.answerChars),
      cacheRead,
      cacheWrite,
      cost: 0,
      estimated: true,
      costKnown: false,
    };
  }
  return { input, output, cacheRead, cacheWrite, cost: isCount(cost) ? cost : 0, estimated: false, costKnown: isCount(cost) };
}

/**
 * The record's and the result's note on a run with turns of unusable usage, or undefined when every report
 * was usable.
 */
export function usageNoteText(turns: number, estimatedTurns: number, unknownCostTurns: number): string | undefined {
  if (estimatedTurns === 0 && unknownCostTurns === 0) return undefined;
  const parts: string[] = [];
  if (estimatedTurns > 0) {
    parts.push(
      `the provider reported no usable usage for ${estimatedTurns} of ${counted(turns, "turn")}; their tokens are estimated from the text sizes (${CHARS_PER_TOKEN} characters a token, without pi's system prompt)`,
    );
  }
  parts.push(
    unknownCostTurns === estimatedTurns
      ? "their cost is unknown (counted as $0)"
      : `the cost of ${unknownCostTurns} of ${counted(turns, "turn")} is unknown (counted as $0)`,
  );
  return parts.join("; ");
}
