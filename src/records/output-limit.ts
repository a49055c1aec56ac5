/**
 * How much of a subagent's answer the main agent is handed. A runaway answer (megabytes) would not fit any
 * context window, so the `[subagent-result]` envelope, the blocking tool result and the result `details` carry
 * at most a limit; the whole answer is saved beside the task's record (`output.md`), and the cut text says
 * where and how much was left out, so the main agent can read the rest if it must. The record keeps the whole
 * output too, which is what /subagent-result shows.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../shared/atomic-file.ts";
import { stripTerminalControls } from "../shared/terminal-text.ts";
import { taskDir } from "../run/session-file.ts";
import type { TaskRecord } from "./types.ts";

export const MAX_OUTPUT_ENV = "PI_SUBAGENT_MAX_OUTPUT_CHARS";
export const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
/** Below this a limit would cut ordinary answers; a smaller value is raised to it. */
export const MIN_MAX_OUTPUT_CHARS = 1000;
export const FULL_OUTPUT_FILE_NAME = "output.md";

/** The limit from the environment: a whole number of characters, default DEFAULT_MAX_OUTPUT_CHARS. */
export function readMaxOutputChars(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MAX_OUTPUT_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_MAX_OUTPUT_CHARS;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) return DEFAULT_MAX_OUTPUT_CHARS;
  return Math.max(MIN_MAX_OUTPUT_CHARS, Math.trunc(value));
}

/** The first `max` characters, never splitting a surrogate pair. */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return text.slice(0, end);
}

/** The note that ends a cut output (model-facing: plain words, no em dash). */
export function cutNote(shown: number, total: number, fullOutputFile: string): string {
  return `[Output cut: showing the first ${shown} of ${total} characters (${total - shown} omitted). The full output is saved in ${fullOutputFile}; read it from there only if you need the rest.]`;
}

/** The note that ends a cut output whose output.md could not be written: it never claims a file that is not there. */
export function unsavedCutNote(shown: number, total: number, error: string): string {
  return `[Output cut: showing the first ${shown} of ${total} characters (${total - shown} omitted). The full output could not be saved to a file (${error}), so the rest is not available to read.]`;
}

/**
 * Saves the whole output beside the record when it is over `maxChars`, and marks the record so every
 * model-facing text is cut (see limitedOutput). Does nothing for an output within the limit. Never throws: a
 * failed write (full or read-only disk) is kept in `fullOutputError`, the texts are cut all the same, and
 * their note says the rest could not be saved. The write is all or nothing (writeFileAtomicSync), so no
 * output.md with part of the answer is ever left in place.
 */
export function saveLongOutput(agentDir: string, record: TaskRecord, maxChars: number): void {
  if (record.output.length <= maxChars) return;
  record.outputLimitChars = maxChars;
  try {
    const dir = taskDir(agentDir, record.taskId);
    const file = join(dir, FULL_OUTPUT_FILE_NAME);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomicSync(file, record.output);
    record.fullOutputFile = file;
  } catch (error) {
    record.fullOutputError = error instanceof Error ? error.message : String(error);
  }
}

/**
 * The output as the main agent gets it: whole, or cut to the record's limit with the note. Terminal control
 * sequences are taken out too: the model has no use for them, and pi draws this text (a queued steer message,
 * the tool result) where they would reach the terminal.
 */
export function limitedOutput(record: Pick<TaskRecord, "output" | "fullOutputFile" | "outputLimitChars" | "fullOutputError">): string {
  const limit = record.outputLimitChars;
  const cut = record.fullOutputFile !== undefined || record.fullOutputError !== undefined;
  if (!cut || limit === undefined || record.output.length <= limit) return stripTerminalControls(record.output);
  const head = stripTerminalControls(headOf(record.output, limit));
  const note = record.fullOutputFile !== undefined
    ? cutNote(head.length, record.output.length, record.fullOutputFile)
    : unsavedCutNote(head.length, record.output.length, stripTerminalControls(record.fullOutputError ?? ""));
  return `${head}\n\n${note}`;
}
