/**
 * What the task commands share (pure): ids by prefix, completions, notices and a result's text.
 */
import { isTaskIdPrefix, idForMessage } from "../shared/nesting.ts";
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { formatElapsed, oneLine, shortTaskId, formatDuration, formatUsage } from "../shared/text.ts";
import type { TaskSnapshot } from "../tasks/registry.ts";
import { messageBlock, shownOutput, modelProvenanceText, type TaskRecord } from "../records/record.ts";
import type { TaskSources } from "./task-lookup.ts";
import type { AppMode } from "../shared/pi-process.ts";
import { RESULT_COMMAND, WATCH_COMMAND } from "./descriptions.ts";
import { budgetAwareStatus, budgetSummary } from "../budget/limits.ts";
import { worktreeChangesLines, worktreeSummary } from "../worktree/finish-decision.ts";
import { deliverableNoteText } from "../run/deliverable.ts";
import { verifyNoteText } from "../run/verify.ts";

/*
 * Resolving what the person typed after a command to one task id (or batch or chain id). A full id always matches
 * itself; anything shorter must be a start or an end of at least MIN_PREFIX_LENGTH characters that only one
 * candidate has, so a short, copied or half-typed id never picks the wrong task. The end is what the widget and
 * the cards show (`src/shared/text.ts`): the start of ids made together is the same clock time. Pure: the
 * caller supplies the candidates.
 */
/** The shortest start or end accepted: shorter ones would match too much to be a deliberate choice. */
export const MIN_PREFIX_LENGTH = 4;

export interface TaskCandidate {
  taskId: string;
}

export type PrefixResolution<T extends TaskCandidate> =
  | { kind: "empty" }
  | { kind: "too-short"; prefix: string }
  | { kind: "unknown"; prefix: string }
  | { kind: "ambiguous"; prefix: string; matches: T[] }
  | { kind: "found"; task: T };

/** Task ids are lowercase; what was typed is trimmed and lowercased before matching. */
export function normalizeTaskInput(input: string): string {
  return input.trim().toLowerCase();
}

/** Whether `typed` (normalized) is the start or the end of the id. */
function idMatches(taskId: string, typed: string): boolean {
  return taskId.startsWith(typed) || taskId.endsWith(typed);
}

export function resolveTaskPrefix<T extends TaskCandidate>(
  input: string,
  candidates: readonly T[],
): PrefixResolution<T> {
  const prefix = normalizeTaskInput(input);
  if (prefix === "") return { kind: "empty" };
  const exact = candidates.find((candidate) => candidate.taskId === prefix);
  if (exact) return { kind: "found", task: exact };
  // Anything but hex digits and dashes cannot start a task id; it is not compared, and never reaches the disk.
  if (!isTaskIdPrefix(prefix)) return { kind: "unknown", prefix };
  if (prefix.length < MIN_PREFIX_LENGTH) return { kind: "too-short", prefix };
  const matches: T[] = [];
  const seen: Set<string> = new Set();
  for (const candidate of candidates) {
    if (!idMatches(candidate.taskId, prefix) || seen.has(candidate.taskId)) continue;
    seen.add(candidate.taskId);
    matches.push(candidate);
  }
  if (matches.length === 0) return { kind: "unknown", prefix };
  if (matches.length === 1) return { kind: "found", task: matches[0] as T };
  return { kind: "ambiguous", prefix, matches };
}

/*
 * Argument completion for the task commands: after `/subagent-cancel ` (or watch, or result) pi's editor
 * offers the task ids that start with what is typed, each with its agent, status and task. Cancel and watch
 * offer this pi's running and queued tasks; result offers those and the most recent finished ones on disk.
 * The finished list is read from disk at most once every few seconds, since pi asks on every key.
 */
/** At most this many suggestions (the newest). */
export const COMPLETIONS_MAX = 20;
/** How many finished tasks /subagent-result offers. */
export const RECENT_FINISHED_MAX = 20;
const FINISHED_CACHE_MS = 3000;
const PREVIEW_MAX = 60;
/**
 * The id part of a suggestion's label: pi shows labels in a column of about 30 characters, too narrow for a
 * whole id and an agent. Its first 8 characters (the time) and the short id the widget shows (its random end):
 * `01912345…3f9a2c7d`; the full id is what gets inserted.
 */
function labelId(taskId: string): string {
  return `${taskId.slice(0, 8)}…${shortTaskId(taskId)}`;
}

export interface CompletionTask {
  taskId: string;
  agent: string;
  status: string;
  task: string;
}

function runningCompletionTask(task: TaskSnapshot, now: number): CompletionTask {
  const status =
    task.status === "queued" ? "queued" : `running ${formatElapsed(now - (task.startedAt ?? task.dispatchedAt))}`;
  return { taskId: task.taskId, agent: task.agent, status, task: task.task };
}

function finishedCompletionTask(record: TaskRecord): CompletionTask {
  return { taskId: record.taskId, agent: record.agent, status: statusWithCause(record), task: record.task };
}

/** The tasks whose id starts or ends with what is typed (each id once, in the order given), as editor suggestions. */
export function completionItems(typed: string, tasks: readonly CompletionTask[]): AutocompleteItem[] | null {
  const prefix = normalizeTaskInput(typed);
  const seen: Set<string> = new Set();
  const items: AutocompleteItem[] = [];
  for (const task of tasks) {
    if (items.length >= COMPLETIONS_MAX) break;
    if (!idMatches(task.taskId, prefix) || seen.has(task.taskId)) continue;
    seen.add(task.taskId);
    items.push({
      value: task.taskId,
      label: `${labelId(task.taskId)} ${task.agent}`,
      description: `${task.status} · ${oneLine(task.task, PREVIEW_MAX)}`,
    });
  }
  return items.length > 0 ? items : null;
}

/** Each batch or chain with a part in flight, once, after its parts: `/subagent-cancel` takes its id too. */
function workflowCompletionTasks(running: readonly TaskSnapshot[]): CompletionTask[] {
  const seen: Map<string, { kind: string; total: number; inFlight: number }> = new Map();
  for (const task of running) {
    if (!task.workflow) continue;
    const entry = seen.get(task.workflow.id) ?? { kind: task.workflow.kind, total: task.workflow.total, inFlight: 0 };
    entry.inFlight += 1;
    seen.set(task.workflow.id, entry);
  }
  return [...seen].map(([taskId, entry]) => ({
    taskId,
    agent: `${entry.kind} of ${entry.total}`,
    status: `${entry.inFlight} in flight`,
    task: `every part of the ${entry.kind}`,
  }));
}

export interface TaskCompletions {
  running: (typed: string) => AutocompleteItem[] | null;
  /** The running tasks and the batches and chains they belong to (for `/subagent-cancel`). */
  cancellable: (typed: string) => AutocompleteItem[] | null;
  runningAndRecent: (typed: string) => AutocompleteItem[] | null;
}

export function taskCompletions(sources: TaskSources, now: () => number = Date.now): TaskCompletions {
  let cached: { at: number; tasks: CompletionTask[] } | undefined;
  const recent = (): CompletionTask[] => {
    const at = now();
    if (!cached || at - cached.at > FINISHED_CACHE_MS) {
      cached = { at, tasks: sources.recentRecords(RECENT_FINISHED_MAX).map(finishedCompletionTask) };
    }
    return cached.tasks;
  };
  const running = () => sources.running().map((task) => runningCompletionTask(task, now()));
  return {
    running: (typed) => completionItems(typed, running()),
    cancellable: (typed) => {
      const tasks = sources.running();
      return completionItems(typed, [
        ...tasks.map((task) => runningCompletionTask(task, now())),
        ...workflowCompletionTasks(tasks),
      ]);
    },
    runningAndRecent: (typed) => completionItems(typed, [...running(), ...recent()]),
  };
}

/*
 * Every one-line notice of /subagent-cancel, /subagent-cancel-all, /subagent-result and /subagent-watch. The
 * spec's strings (cancel-all counts, a running task, an unknown id, a task with no output) are reproduced to
 * the letter; the others are ours. Pure text, so the notices are tested without pi.
 */
/** A task as the notices name it. */
export interface NamedTask {
  taskId: string;
  agent?: string;
}

/** How many tasks an ambiguous-prefix notice names before it says how many more there are. */
const LISTED_MAX = 8;

function named(task: NamedTask): string {
  return task.agent ? `${task.taskId} (${task.agent})` : task.taskId;
}

function listed(tasks: readonly NamedTask[]): string {
  const shown = tasks.slice(0, LISTED_MAX).map(named).join(", ");
  const more = tasks.length - LISTED_MAX;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

// --- the spec's strings ---

export function cancelledCount(count: number): string {
  return `Cancelled ${count} running subagent task(s).`;
}

export const NOTHING_TO_CANCEL = "No running subagent tasks to cancel.";

export const RESULT_STILL_RUNNING = "Task still running — view it after it finishes";

export function noTaskRecord(taskId: string): string {
  return `No task record for: ${idForMessage(taskId)}`;
}

export function noFinalOutput(sessionFile: string): string {
  return `Task has no final output (session file: ${sessionFile})`;
}

// --- ids and prefixes ---

export function prefixTooShort(prefix: string): string {
  return `Task id "${idForMessage(prefix)}" is too short: type at least ${MIN_PREFIX_LENGTH} characters of the taskId.`;
}

export function prefixAmbiguous(prefix: string, matches: readonly NamedTask[]): string {
  return `"${prefix}" matches ${matches.length} tasks: ${listed(matches)}. Type more of the taskId.`;
}

/** For cancel and watch: nothing running here has that id; names what does run, if anything. */
export function noRunningTaskMatches(prefix: string, command: string, running: readonly NamedTask[] = []): string {
  const base = `No running subagent task matches: ${idForMessage(prefix)}`;
  return running.length === 0 ? base : `${base}. ${runningTasksList(command, running)}`;
}

/** The running tasks, for a command given no id where no picker can be shown. */
function runningTasksList(command: string, running: readonly NamedTask[]): string {
  return `Running subagent tasks: ${listed(running)}. Use /${command} <taskId>.`;
}

export function runsElsewhere(taskId: string, verb: "cancel" | "watch" | "message"): string {
  return `Task ${taskId} runs in another pi process; ${verb} it there.`;
}

export function alreadyFinished(taskId: string, status: string): string {
  return `Task ${taskId} already finished (${status}). Its result: /${RESULT_COMMAND} ${taskId}`;
}

// --- /subagent-cancel ---

/** `/subagent-result <batch id>`: a workflow has no result of its own; each part's is named. */
export function workflowResultNotice(
  workflowId: string,
  title: string,
  parts: ReadonlyArray<{ index: number; agent: string; status: string; taskId?: string }>,
): string {
  const each = parts.map((part) =>
    part.taskId
      ? `/subagent-result ${part.taskId} (${part.index}. ${part.agent} ${part.status})`
      : `${part.index}. ${part.agent} ${part.status}`,
  );
  return `${workflowId} is a ${title}. Each part has its own result: ${each.join(", ")}.`;
}

/** `/subagent-cancel <batch id>`: every part in flight was cancelled; the workflow's one result follows. */
export function workflowCancelSent(kind: "batch" | "chain", workflowId: string, parts: number): string {
  return `Cancelled ${parts} ${parts === 1 ? "part" : "parts"} of ${kind} ${workflowId}; its one result goes to the main agent once every part has ended.`;
}

export function cancelSent(task: NamedTask): string {
  return `Cancelled subagent task ${named(task)}; its cancelled result goes to the main agent.`;
}

export function cancelAlreadyRequested(task: NamedTask): string {
  return `Subagent task ${named(task)} is already being cancelled.`;
}

// --- /subagent-result ---

export const RESULT_USAGE = `Usage: /${RESULT_COMMAND} <taskId> (the short id the widget shows, or any unique start or end of ${MIN_PREFIX_LENGTH}+ characters, is enough)`;

export const NO_FINISHED_TASKS = "No finished subagent tasks recorded yet.";

// --- /subagent-watch ---

export const NOTHING_TO_WATCH = "No running subagent tasks to watch.";

export function watchEnded(taskId: string, status: string | undefined): string {
  const how = status ? `Task ended (${status}).` : "Task ended.";
  return `${how} Full result: /${RESULT_COMMAND} ${taskId}`;
}

// --- outside the interactive TUI ---

function whereDelegationsRun(mode: AppMode): string {
  return mode === "rpc"
    ? "in rpc mode each delegation runs synchronously inside its subagent tool call (abort the call to stop it)"
    : `in ${mode} mode each delegation runs synchronously inside its subagent tool call and ends with it`;
}

/** What /subagent-cancel and /subagent-cancel-all can and cannot do outside the TUI. */
export function cancelOutsideTui(command: string, mode: AppMode): string {
  return `/${command} stops background subagent tasks, which exist only in the interactive TUI; ${whereDelegationsRun(mode)}, so there is nothing to cancel here.`;
}

export function watchOutsideTui(mode: AppMode): string {
  return `/${WATCH_COMMAND} is a live view of a background task and needs the interactive TUI; in ${mode} mode read a finished task with /${RESULT_COMMAND} <taskId>.`;
}

export function commandFailed(command: string, error: unknown): string {
  return `/${command} failed: ${error instanceof Error ? error.message : String(error)}`;
}

/*
 * How a finished task reads outside the viewer: its status line (also the viewer's), the plain text that
 * `pi -p "/subagent-result <id>"` prints (metadata lines, a `---` line, then the full output, so a script can
 * split at the first `---` line), and the JSON line printed in JSON mode. Pure.
 */
/** `succeeded`, or `cancelled by user` / `timed out (activity_timeout)` where the bare status hides why. */
export function statusWithCause(
  record: Pick<TaskRecord, "status" | "cancelledBy" | "stopReason" | "errorMessage">,
): string {
  if (record.status === "cancelled") {
    if (record.cancelledBy === "user") return "cancelled by user";
    if (record.cancelledBy === "agent") return "cancelled by main agent";
    if (record.cancelledBy === "none") return "cancelled by session shutdown";
    return "cancelled";
  }
  if (record.status === "timed out" && record.stopReason) return `timed out (${record.stopReason})`;
  return budgetAwareStatus(record);
}

/** `worker · succeeded · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042 · fake/fake-model` */
export function resultStatusLine(record: TaskRecord): string {
  const parts = [record.agent, statusWithCause(record), formatDuration(record.durationMs), formatUsage(record.usage)];
  if (record.model) parts.push(record.model);
  return parts.join(" · ");
}

/** `Depth: 2 of 3` under a nesting limit above 1, `Context: forked (12 messages)` for a forked task. */
function originLines(record: Pick<TaskRecord, "origin">): string[] {
  const origin = record.origin;
  if (!origin) return [];
  const lines: string[] = [];
  if (origin.maxDepth > 1) lines.push(`Depth: ${origin.depth} of ${origin.maxDepth}`);
  if (origin.context === "fork") lines.push(`Context: forked (${origin.forkedMessages ?? 0} messages)`);
  if (origin.sandbox) lines.push(`Sandbox: ${origin.sandbox}`);
  if (origin.toolsNotGranted) lines.push(`Note: ${origin.toolsNotGranted}`);
  return lines;
}

/** The metadata block of the printed result, one `Key: value` a line. */
export function resultMetadataLines(record: TaskRecord): string[] {
  const lines = [
    `Task id: ${record.taskId}`,
    `Agent: ${record.agent}`,
    `Status: ${statusWithCause(record)}`,
    `Duration: ${formatDuration(record.durationMs)}`,
    `Usage: ${formatUsage(record.usage)}`,
  ];
  if (record.usageNote) lines.push(`Usage note: ${record.usageNote}`);
  const deliverable = record.deliverable && deliverableNoteText(record.deliverable);
  if (deliverable) lines.push(`Deliverable: ${deliverable}`);
  if (record.verify) lines.push(`Verify: ${oneLine(verifyNoteText(record.verify), 300)}`);
  if (record.skippedOutput) {
    const first = record.skippedOutput.sample[0];
    const sample = first === undefined ? "" : ` (the first: ${JSON.stringify(oneLine(first, 80))})`;
    lines.push(
      `Skipped output: ${record.skippedOutput.lines} lines of the subagent's stdout that were not pi events${sample}`,
    );
  }
  const model = modelProvenanceText(record);
  if (model) lines.push(`Model: ${model}`);
  const budget = budgetSummary(record);
  if (budget) lines.push(`Budget: ${budget}`);
  if (record.stopReason && record.status !== "succeeded") lines.push(`Stop reason: ${record.stopReason}`);
  if (record.errorMessage && record.status !== "succeeded") lines.push(`Error: ${oneLine(record.errorMessage, 500)}`);
  // A person's cancel records the command used, not a reason.
  if (record.cancelReason && record.cancelledBy === "user")
    lines.push(`Cancelled with: ${oneLine(record.cancelReason, 100)}`);
  else if (record.cancelReason) lines.push(`Cancellation reason: ${oneLine(record.cancelReason, 500)}`);
  lines.push(
    `Mode: ${record.mode === "async" ? "background" : "synchronous"}`,
    ...originLines(record),
    `Finished: ${new Date(record.finishedAt).toISOString()}`,
    `Session file: ${record.sessionFile}`,
    `Task: ${oneLine(record.task, 2000)}`,
  );
  if (record.worktree)
    lines.push(`Worktree: ${worktreeSummary(record.worktree)}`, ...worktreeChangesLines(record.worktree));
  lines.push(...messageBlock(record.messages));
  return lines;
}

/** What `pi -p "/subagent-result <id>"` writes to stdout: metadata, `---`, the full output. */
export function resultPlainText(record: TaskRecord): string {
  const shown = shownOutput(record);
  const output = shown.endsWith("\n") ? shown : `${shown}\n`;
  return `${resultMetadataLines(record).join("\n")}\n---\n${output}`;
}

/** The one JSON line JSON mode writes: the record (without the envelope, which repeats the output). */
export function resultJsonLine(record: TaskRecord): string {
  const { envelope: _envelope, ...rest } = record;
  return `${JSON.stringify({ type: "subagent_result", ...rest })}\n`;
}

/** One line per finished task, newest first, for `/subagent-result` without an id outside the TUI. */
export function recentResultLines(records: readonly TaskRecord[]): string[] {
  return records.map(
    (record) => `${record.taskId}  ${record.agent}  ${statusWithCause(record)}  ${oneLine(record.task, 80)}`,
  );
}
