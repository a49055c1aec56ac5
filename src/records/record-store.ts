/**
 * Records on disk: `record.json` written atomically and read under a cap, a write that must not cost the result, and the answer beyond the limit kept in `output.md`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync, readStateJsonSync, RECORD_MAX_BYTES } from "../shared/safe-write.ts";
import { taskDir } from "../run/session-files.ts";
import { isTaskId, taskIdTime } from "../shared/nesting.ts";
import { taskFolderIds } from "../run/startup-work.ts";
import type { TaskRecord } from "./record.ts";
import { stripTerminalControls } from "../shared/text.ts";

/*
 * Task records on disk, one `record.json` in each task's session folder. Writes are atomic (temp file, every
 * byte checked, fsync, rename), so a reader never sees half a record and a crash leaves the previous one. A
 * record is read only as a regular file of at most RECORD_MAX_BYTES, never through a link (`readStateJsonSync` in
 * src/shared/safe-write.ts).
 */
const RECORD_FILE_NAME = "record.json";

export function recordPath(agentDir: string, taskId: string): string {
  return join(taskDir(agentDir, taskId), RECORD_FILE_NAME);
}

export function writeRecord(agentDir: string, record: TaskRecord): void {
  const dir = taskDir(agentDir, record.taskId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Synchronous on purpose: records are small, and the exit path must be able to write them too.
  writeFileAtomicSync(join(dir, RECORD_FILE_NAME), `${JSON.stringify(record, null, 2)}\n`);
}

function isRecord(value: unknown): value is TaskRecord {
  return (
    Boolean(value) &&
    typeof value === "object" &&
    (value as TaskRecord).version === 1 &&
    typeof (value as TaskRecord).taskId === "string"
  );
}

export function readRecord(agentDir: string, taskId: string): TaskRecord | undefined {
  if (!isTaskId(taskId)) return undefined;
  const parsed = readStateJsonSync(recordPath(agentDir, taskId), RECORD_MAX_BYTES);
  return isRecord(parsed) ? parsed : undefined;
}

/** Ids of every task folder (running or finished), newest first (UUID v7 ids sort by time). */
export function listTaskIds(agentDir: string): string[] {
  return taskFolderIds(agentDir).sort().reverse();
}

/**
 * The most recent finished records, the last finished first. Folders are read newest id first; `lookbackMs` reads on
 * past the `limit`-th record through the ids that much older, for tasks whose id was chosen before they were
 * dispatched (one served by a warm child took the id its child was started under, up to its idle time earlier).
 */
export function listRecentRecords(agentDir: string, limit: number, lookbackMs = 0): TaskRecord[] {
  const records: TaskRecord[] = [];
  let readBackTo: number | undefined;
  for (const id of listTaskIds(agentDir)) {
    if (readBackTo !== undefined && taskIdTime(id) < readBackTo) break;
    const record = readRecord(agentDir, id);
    if (!record) continue;
    records.push(record);
    if (records.length === limit) {
      if (lookbackMs <= 0) break;
      readBackTo = taskIdTime(id) - lookbackMs;
    }
  }
  // Stable: records that finished at the same time keep their newest-id-first order.
  return records.sort((a, b) => b.finishedAt - a.finishedAt).slice(0, limit);
}

/*
 * Writing a record where a failed write must not cost the result: the blocking tool path (the result is the
 * tool's return value, so it reaches the model whatever the disk does) and pi's exit path. The failure is
 * returned for the caller to report, never thrown.
 */
export function saveRecordQuietly(agentDir: string, record: TaskRecord): unknown {
  try {
    writeRecord(agentDir, record);
    return undefined;
  } catch (error) {
    return error;
  }
}

/*
 * How much of a subagent's answer the main agent is handed. A runaway answer (megabytes) would not fit any
 * context window, so the `[subagent-result]` envelope, the blocking tool result and the result `details` carry
 * at most a limit; the whole answer is saved beside the task's record (`output.md`), and the cut text says
 * where and how much was left out, so the main agent can read the rest if it must. The record keeps the whole
 * output too, which is what /subagent-result shows.
 */
export const MAX_OUTPUT_ENV = "PI_SUBAGENT_MAX_OUTPUT_CHARS";
export const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
/** Below this a limit would cut ordinary answers; a smaller value is raised to it. */
const MIN_MAX_OUTPUT_CHARS = 1000;
const FULL_OUTPUT_FILE_NAME = "output.md";

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
function cutNote(shown: number, total: number, fullOutputFile: string): string {
  return `[Output cut: showing the first ${shown} of ${total} characters (${total - shown} omitted). The full output is saved in ${fullOutputFile}; read it from there only if you need the rest.]`;
}

/** The note that ends a cut output whose output.md could not be written: it never claims a file that is not there. */
function unsavedCutNote(shown: number, total: number, error: string): string {
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
export function limitedOutput(
  record: Pick<TaskRecord, "output" | "fullOutputFile" | "outputLimitChars" | "fullOutputError">,
): string {
  const limit = record.outputLimitChars;
  const cut = record.fullOutputFile !== undefined || record.fullOutputError !== undefined;
  if (!cut || limit === undefined || record.output.length <= limit) return stripTerminalControls(record.output);
  const head = stripTerminalControls(headOf(record.output, limit));
  const note =
    record.fullOutputFile !== undefined
      ? cutNote(head.length, record.output.length, record.fullOutputFile)
      : unsavedCutNote(head.length, record.output.length, stripTerminalControls(record.fullOutputError ?? ""));
  return `${head}\n\n${note}`;
}

/**
 * The structured result carried in a tool result's or a `[subagent-result]` message's `details`: for
 * programs and renderers, never sent to the model. The record's own fields, plus `sessionId` (the same as the
 * task id) under the name the spec gives it; `durationMs` is always present. `dispatchedAt` tells a resumed task's
 * runs apart (they share the taskId), so each run's result is delivered once.
 */
export type SubagentResultDetails = Pick<
  TaskRecord,
  | "taskId"
  | "agent"
  | "task"
  | "status"
  | "exitCode"
  | "stopReason"
  | "errorMessage"
  | "cancelledBy"
  | "cancelReason"
  | "durationMs"
  | "usage"
  | "model"
  | "output"
  | "deliverable"
  | "verify"
> & {
  sessionId: string;
  /** The run's dispatch time (absent in details stored before runs were told apart). */
  dispatchedAt?: number;
};

export function detailsFromRecord(record: TaskRecord): SubagentResultDetails {
  return {
    taskId: record.taskId,
    agent: record.agent,
    task: record.task,
    status: record.status,
    exitCode: record.exitCode,
    stopReason: record.stopReason,
    errorMessage: record.errorMessage,
    cancelledBy: record.cancelledBy,
    cancelReason: record.cancelReason,
    durationMs: record.durationMs,
    dispatchedAt: record.dispatchedAt,
    usage: record.usage,
    model: record.model,
    sessionId: record.taskId,
    // Details are kept in the session file and drawn in the TUI: the cut output, like the model's.
    output: limitedOutput(record),
    // Only a check that found something: a fine answer's details stay as they were.
    ...(record.deliverable && record.deliverable !== "ok" ? { deliverable: record.deliverable } : {}),
    ...(record.verify ? { verify: record.verify } : {}),
  };
}
