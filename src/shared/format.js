// @ts-check
/** Formatting shared by envelopes, cards, widgets and tool results. */
import { stripTerminalControls } from "./terminal-text.js";

/**
 * @param {number} n
 * @returns {string}
 */
function pad2(n) {
  return String(n).padStart(2, "0");
}

/**
 * A run's final duration: `MM:SS`, or `H:MM:SS` from one hour on (hours not zero-padded).
 * @param {number} ms
 * @returns {string}
 */
export function formatDuration(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad2(minutes)}:${pad2(seconds)}` : `${pad2(minutes)}:${pad2(seconds)}`;
}

/**
 * A configured limit in seconds, as a timeout message states it: `2.5 s`, `0.4 s`, `45 ms`, `600 s`. Tenths
 * are shown below ten seconds, so 2.5 s does not read "3 s" and 0.4 s does not read "0 s".
 * @param {number} ms
 * @returns {string}
 */
export function formatSeconds(ms) {
  if (ms < 100) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${trimZero((ms / 1000).toFixed(1))} s`;
  return `${Math.round(ms / 1000)} s`;
}

/**
 * The widget's live clock: always `MM:SS`, minutes simply growing past 99.
 * @param {number} ms
 * @returns {string}
 */
export function formatElapsed(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${pad2(Math.floor(total / 60))}:${pad2(total % 60)}`;
}

/**
 * Token counts: `950`, `12.5k`, `3.2M`.
 * @param {number} count
 * @returns {string}
 */
export function formatTokens(count) {
  const whole = Math.round(count);
  if (whole < 1000) return String(whole);
  // Switch units where rounding would print 1000k.
  if (whole < 999_950) return `${trimZero((whole / 1000).toFixed(1))}k`;
  return `${trimZero((whole / 1_000_000).toFixed(1))}M`;
}

/**
 * @param {string} fixed
 * @returns {string}
 */
function trimZero(fixed) {
  return fixed.endsWith(".0") ? fixed.slice(0, -2) : fixed;
}

/**
 * @typedef {object} UsageTotals
 * @property {number} turns
 * @property {number} input
 * @property {number} output
 * @property {number} cacheRead
 * @property {number} cacheWrite
 * @property {number} cost
 * @property {number} contextTokens Tokens in the context window after the last turn.
 */

/** @returns {UsageTotals} */
export function emptyUsage() {
  return { turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 };
}

/**
 * `5 turns/↑12.5k/↓3.2k/$0.0042` (one turn reads `1 turn`).
 * @param {UsageTotals} usage
 * @returns {string}
 */
export function formatUsage(usage) {
  const turns = `${usage.turns} ${usage.turns === 1 ? "turn" : "turns"}`;
  return `${turns}/↑${formatTokens(usage.input)}/↓${formatTokens(usage.output)}/$${usage.cost.toFixed(4)}`;
}

/**
 * One line, at most `max` characters, for previews (task text, tool arguments); no terminal control sequences.
 * @param {string} text
 * @param {number} max
 * @returns {string}
 */
export function oneLine(text, max) {
  const flat = stripTerminalControls(text).replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}
