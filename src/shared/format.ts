/** Formatting shared by envelopes, cards, widgets and tool results. */
import { stripTerminalControls } from "./terminal-text.ts";

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** A run's final duration: `MM:SS`, or `H:MM:SS` from one hour on (hours not zero-padded). */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad2(minutes)}:${pad2(seconds)}` : `${pad2(minutes)}:${pad2(seconds)}`;
}

/**
 * A configured limit in seconds, as a timeout message states it: `2.5 s`, `0.4 s`, `45 ms`, `600 s`. Tenths
 * are shown below ten seconds, so 2.5 s does not read "3 s" and 0.4 s does not read "0 s".
 */
export function formatSeconds(ms: number): string {
  if (ms < 100) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${trimZero((ms / 1000).toFixed(1))} s`;
  return `${Math.round(ms / 1000)} s`;
}

/** The widget's live clock: always `MM:SS`, minutes simply growing past 99. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${pad2(Math.floor(total / 60))}:${pad2(total % 60)}`;
}

/** Token counts: `950`, `12.5k`, `3.2M`. */
export function formatTokens(count: number): string {
  const whole = Math.round(count);
  if (whole < 1000) return String(whole);
  // Switch units where rounding would print 1000k.
  if (whole < 999_950) return `${trimZero((whole / 1000).toFixed(1))}k`;
  return `${trimZero((whole / 1_000_000).toFixed(1))}M`;
}

function trimZero(fixed: string): string {
  return fixed.endsWith(".0") ? fixed.slice(0, -2) : fixed;
}

export interface UsageTotals {
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** Tokens in the context window after the last turn. */
  contextTokens: number;
}

export function emptyUsage(): UsageTotals {
  return { turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 };
}

/** `5 turns/↑12.5k/↓3.2k/$0.0042` (one turn reads `1 turn`). */
export function formatUsage(usage: UsageTotals): string {
  const turns = `${usage.turns} ${usage.turns === 1 ? "turn" : "turns"}`;
  return `${turns}/↑${formatTokens(usage.input)}/↓${formatTokens(usage.output)}/$${usage.cost.toFixed(4)}`;
}

/** One line, at most `max` characters, for previews (task text, tool arguments); no terminal control sequences. */
export function oneLine(text: string, max: number): string {
  const flat = stripTerminalControls(text).replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/** `1 turn`, `2 turns`: a count with its noun, singular for one (`plural` when adding an s is wrong). */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
