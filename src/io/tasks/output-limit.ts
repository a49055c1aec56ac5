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
import { stripTerminalControls } from "../../core/shared/terminal-text.ts";
import { taskDir } from "../run/session-file.ts";
import type { TaskRecord } from "../../core/tasks/types.ts";

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

/**
 * Saves the whole output beside the record when it is over `maxChars`, and marks the record so every
 * model-facing text is cut (see limitedOutput). Does nothing for an output within the limit.
 */
export function saveLongOutput(agentDir: string, record: TaskRecord, maxChars: number): void {
  if (record.output.length <= maxChars) return;
  const dir = taskDir(agentDir, record.taskId);
  const file = join(dir, FULL_OUTPUT_FILE_NAME);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileAtomicSync(file, record.output);
  record.fullOutputFile = file;
  record.outputLimitChars = maxChars;
}

/**
 * The output as the main agent gets it: whole, or cut to the record's limit with the note. Terminal control
 * sequences are taken out too: the model has no use for them, and pi draws this text (a queued steer message,
 * the tool result) where they would reach the terminal.
 */
export function limitedOutput(record: Pick<TaskRecord, "output" | "fullOutputFile" | "outputLimitChars">): string {
  const limit = record.outputLimitChars;
  if (record.fullOutputFile === undefined || limit === undefined || record.output.length <= limit) return stripTerminalControls(record.output);
  const head = stripTerminalControls(headOf(record.output, limit));
  return `${head}\n\n${cutNote(head.length, record.output.length, record.fullOutputFile)}`;
}
