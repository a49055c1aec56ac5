/**
 * Text as people see it: formatting shared by envelopes, cards, widgets and tool results, control sequences removed, the short id, and the styler port the renderers hand in.
 */
import type { Theme } from "@mariozechner/pi-coding-agent";

/* Formatting shared by envelopes, cards, widgets and tool results. */
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

/*
 * Text from a model or a file, made safe to draw: every terminal control sequence is removed, so a task, an
 * answer or a file name can never set the window title, clear the screen, move the cursor or plant a link
 * (OSC 8). Line breaks and tabs stay (callers that need one line flatten them); everything else below the
 * space character, DEL and the C1 range goes. Pure, and the one place this is done.
 */
/* eslint-disable no-control-regex */
/** ESC [ … final byte (CSI), and its one-byte C1 form. */
const CSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?/g;
/** ESC ] … BEL or ST (OSC), and ESC P / X / ^ / _ … ST (DCS, SOS, PM, APC); unterminated ones run to the end. */
const STRING_SEQUENCE = /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
/** Any other escape: ESC and the byte after it (ESC 7, ESC c, ESC ( B…). */
const OTHER_ESCAPE = /\u001b[\s\S]?/g;
/** What is left: C0 controls except tab and line feed, DEL, C1 controls. A CR could overwrite a line, so it goes. */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/* eslint-enable no-control-regex */

export function stripTerminalControls(text: string): string {
  // Fast path: most text has nothing to strip.
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text)) return text;
  return text
    .replace(/\r\n/g, "\n")
    .replace(STRING_SEQUENCE, "")
    .replace(CSI, "")
    .replace(OTHER_ESCAPE, "")
    .replace(CONTROL_CHARACTER, "");
}

/**
 * How much of a task id the widget and the cards show: its end. A UUID v7 starts with its creation time, so tasks
 * (and a batch and its parts) dispatched together share their first 8 to 13 characters or more, while the last 8
 * are random: 8 hex digits tell apart everything a person sees at once, and the commands accept them as the id
 * (`src/commands/task-commands.ts`). `shortTaskIds` lengthens them in the rare case two shown ids end alike.
 */
const SHORT_ID_LENGTH = 8;

export function shortTaskId(taskId: string): string {
  return taskId.slice(-SHORT_ID_LENGTH);
}

/** For each id, its shortest end of at least SHORT_ID_LENGTH characters that no other id shares. */
export function shortTaskIds(taskIds: readonly string[]): string[] {
  return taskIds.map((id) => {
    let length = SHORT_ID_LENGTH;
    while (length < id.length && taskIds.some((other) => other !== id && other.endsWith(id.slice(-length)))) length++;
    return id.slice(-length);
  });
}

/**
 * The part of pi's theme the UI formatters use: a colour by role and bold. pi passes its `Theme`; unit tests
 * pass one that returns the text unchanged, so the formatters are checked on plain text.
 */
export type Styler = Pick<Theme, "fg" | "bold">;
