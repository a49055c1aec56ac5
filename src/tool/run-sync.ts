/**
 * A blocking run (print, JSON and RPC mode): the run, its lines on stderr, and its result.
 */
import { settleChecksFor } from "../run/settle-checks.ts";
import { deliverableNoteText } from "../run/deliverable.ts";
import { verifyNoteText } from "../run/verify.ts";
import {
  formatElapsed,
  stripTerminalControls,
  formatUsage,
  formatDuration,
  formatSeconds,
  oneLine,
} from "../shared/text.ts";
import { readSubagentDepth } from "../shared/nesting.ts";
import {
  isPartialRecord,
  shownOutput,
  callChoseModel,
  modelProvenanceText,
  recordFromOutcome,
  type TaskRecord,
  type WorkflowMembership,
} from "../records/record.ts";
import type { AppMode } from "../shared/pi-process.ts";
import { CRASHED_STOP_REASON, KILLED_STOP_REASON, outcomeAtExit } from "../run/outcome.ts";
import { budgetAwareStatus, budgetSummary } from "../budget/limits.ts";
import {
  limitedOutput,
  detailsFromRecord,
  readMaxOutputChars,
  saveLongOutput,
  recordPath,
  saveRecordQuietly,
  type SubagentResultDetails,
} from "../records/record-store.ts";
import { inertChildText } from "../delivery/envelope.ts";
import { worktreeBlock } from "../worktree/finish-decision.ts";
import type { RunSettings } from "../shared/run-settings.ts";
import { phaseLabel, type RunState } from "../run/event-reducer.ts";
import { onProcessExit } from "../run/processes.ts";
import { startRun } from "../run/runner.ts";
import { cleanupFailureNotice, RETURNED, saveFailureNotice } from "../delivery/outbox.ts";
import type { PreparedRun } from "./prepare-dispatch.ts";
import type { DialogRoute } from "../dialogs/child-dialogs.ts";
import {
  deliveredEvent,
  endedEvent,
  LIFECYCLE_CHANNELS,
  queuedEvent,
  startedEvent,
  type LifecycleSink,
} from "../delivery/lifecycle-events.ts";

/*
 * What a blocking run tells the terminal on stderr in print and JSON mode, so a person is never in front of a
 * silent terminal while a child works: a line when the child starts (agent, task id), a progress line when it
 * made tool calls since the last line (at most one every PROGRESS_LINE_MIN_MS) or, when nothing new happened,
 * one every QUIET_LINE_MS, and a line when it ends. Pure: the caller feeds it the run's state once a second and
 * writes what it returns. Every line has the terminal's control sequences removed (a tool's arguments are the
 * child's to choose).
 *
 *   subagent worker started · task 01a24177-831b-70e9-9b68-dc543ba7b57b
 *   subagent worker …a7b57b · 00:06 · ⚡ bash: npm test · 1 tool call
 *   subagent worker succeeded · 00:09 · 2 turns/↑1.2k/↓300 · task 01a24177-831b-70e9-9b68-dc543ba7b57b
 */
/** The least time between two lines of one run (a start line counts). */
export const PROGRESS_LINE_MIN_MS = 5_000;
/** The longest a run stays silent while it works: a line is written even when nothing new happened. */
export const QUIET_LINE_MS = 30_000;
/** Characters of a progress line's activity (a long command is cut). */
const ACTIVITY_MAX = 120;

/** `PI_SUBAGENT_PROGRESS`: `0`, `off`, `false` or `no` silence the lines; anything else (or unset) keeps them. */
const PROGRESS_ENV = "PI_SUBAGENT_PROGRESS";

export function progressLinesWanted(env: NodeJS.ProcessEnv): boolean {
  const value = env[PROGRESS_ENV]?.trim().toLowerCase();
  return !(value === "0" || value === "off" || value === "false" || value === "no");
}

/** A run's state as the reporter needs it. */
export interface ProgressSnapshot {
  elapsedMs: number;
  /** `⚡ bash: npm test`, `thinking`, `waiting for the model` (`phaseLabel` in src/run/event-reducer.ts). */
  phase: string;
  /** The last tool call, `bash: npm test`, if any. */
  lastTool?: string;
  toolCalls: number;
}

function clean(text: string): string {
  return stripTerminalControls(text).replace(/\s+/g, " ").trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function toolCallsText(count: number): string {
  return `${count} tool ${count === 1 ? "call" : "calls"}`;
}

export function startLine(agent: string, taskId: string): string {
  return `subagent ${clean(agent)} started · task ${clean(taskId)}`;
}

/** `subagent worker succeeded · 00:09 · 2 turns/↑1.2k/↓300 · task <id>` */
export function endLine(agent: string, taskId: string, status: string, durationMs: number, usage: string): string {
  return `subagent ${clean(agent)} ${clean(status)} · ${formatElapsed(durationMs)} · ${clean(usage)} · task ${clean(taskId)}`;
}

function progressLine(agent: string, taskId: string, snapshot: ProgressSnapshot): string {
  const phase = clean(snapshot.phase);
  // Between tool calls the phase says little: the last call says what the child was doing.
  const activity =
    phase.startsWith("⚡") || !snapshot.lastTool ? phase : `${phase} (last: ${clean(snapshot.lastTool)})`;
  return `subagent ${clean(agent)} …${clean(taskId).slice(-6)} · ${formatElapsed(snapshot.elapsedMs)} · ${cut(activity, ACTIVITY_MAX)} · ${toolCallsText(snapshot.toolCalls)}`;
}

/** One run's lines: when to write a progress line. */
export class TerminalProgress {
  private lastLineAt: number;
  private toolCallsShown = 0;

  constructor(
    private readonly agent: string,
    private readonly taskId: string,
    startedAtMs = 0,
  ) {
    this.lastLineAt = startedAtMs;
  }

  start(): string {
    return startLine(this.agent, this.taskId);
  }

  /** The progress line due at `snapshot.elapsedMs` (time since the start), if one is. */
  tick(snapshot: ProgressSnapshot): string | undefined {
    const since = snapshot.elapsedMs - this.lastLineAt;
    if (since < PROGRESS_LINE_MIN_MS) return undefined;
    if (snapshot.toolCalls === this.toolCallsShown && since < QUIET_LINE_MS) return undefined;
    this.lastLineAt = snapshot.elapsedMs;
    this.toolCallsShown = snapshot.toolCalls;
    return progressLine(this.agent, this.taskId, snapshot);
  }

  end(status: string, durationMs: number, usage: string): string {
    return endLine(this.agent, this.taskId, status, durationMs, usage);
  }
}

/*
 * The stderr side of a blocking run in print and JSON mode (src/tool/run-sync.ts says which lines,
 * and when). Only the main pi writes them (depth 0: a subagent's stderr is no person's terminal), never stdout,
 * and whether stderr is a terminal or not: a person who pipes or captures stdout still sees them, and a script
 * that wants a quiet stderr sets PI_SUBAGENT_PROGRESS=0. A failed write is ignored.
 */
export interface StderrProgress {
  tick: (progress: SyncProgress) => void;
  end: (record: Pick<TaskRecord, "status" | "durationMs" | "usage">) => void;
}

export interface StderrProgressOptions {
  env?: NodeJS.ProcessEnv;
  write?: (text: string) => void;
}

/** Writes the start line and returns the run's other two hooks; undefined where no lines are written. */
export function openStderrProgress(
  mode: AppMode,
  agent: string,
  taskId: string,
  options: StderrProgressOptions = {},
): StderrProgress | undefined {
  const env = options.env ?? process.env;
  if ((mode !== "print" && mode !== "json") || readSubagentDepth(env) !== 0 || !progressLinesWanted(env))
    return undefined;
  const write = (line: string | undefined) => {
    if (line === undefined) return;
    try {
      (options.write ?? ((text: string) => void process.stderr.write(text)))(`${line}\n`);
    } catch {
      // a closed stderr: nothing to tell
    }
  };
  const lines = new TerminalProgress(agent, taskId);
  write(lines.start());
  return {
    tick: (progress) =>
      write(
        lines.tick({
          elapsedMs: progress.elapsedMs,
          phase: progress.phase,
          lastTool: progress.lastTool,
          toolCalls: progress.toolCalls ?? 0,
        }),
      ),
    end: (record) => write(lines.end(record.status, record.durationMs, formatUsage(record.usage))),
  };
}

/*
 * The text a blocking (print/JSON/RPC) dispatch returns to the model. Success is the subagent's final answer
 * followed by the session line; anything else is a short diagnosis the model can act on, with whatever output
 * exists and the same session line (so the session can still be resumed or inspected).
 */
export function sessionLine(taskId: string): string {
  return `[subagent session: ${taskId}]`;
}

function stopReasonText(record: TaskRecord, activityTimeoutMs: number, hardTimeoutMs: number): string | undefined {
  switch (record.stopReason) {
    case "activity_timeout":
      return `activity_timeout (no output for ${formatSeconds(activityTimeoutMs)})`;
    case "hard_timeout":
      return `hard_timeout (ran longer than ${formatSeconds(hardTimeoutMs)})`;
    case "aborted":
      return "aborted (the call was interrupted)";
    case KILLED_STOP_REASON:
      return "killed (a signal from outside pi-subagent-dispatch ended its pi process: kill, the OOM killer)";
    case CRASHED_STOP_REASON:
      return `crashed (its pi process exited with code ${record.exitCode ?? "?"} in the middle of its run)`;
    default:
      return record.stopReason;
  }
}

/** The most of the verify line (its command is the agent's, and may be long). */
const VERIFY_LINE_MAX = 300;

export function syncResultText(
  record: TaskRecord,
  limits: { activityTimeoutMs: number; hardTimeoutMs: number },
): string {
  // The child's text may not pass for this result's own lines, nor for a batch's or chain's part headings.
  const output = inertChildText(limitedOutput(record));
  const budget = budgetSummary(record);
  const cappedNote = record.budgetNotes && record.budgetNotes.length > 0 ? `\n[subagent budget: ${budget}]` : "";
  const usageNote = record.usageNote ? `\n[subagent usage: ${record.usageNote}]` : "";
  const worktree = record.worktree ? `\n\n${worktreeBlock(record.worktree)}` : "";
  const notGranted = `${record.origin?.sandbox ? `\n[subagent sandbox: ${record.origin.sandbox}]` : ""}${record.origin?.toolsNotGranted ? `\n[subagent ${record.origin.toolsNotGranted}]` : ""}`;
  const asked = record.unansweredQuestions?.length ? `${record.unansweredQuestions.join("\n")}\n\n` : "";
  // Only a call's own choice is named, so a plain answer stays the answer and its session line.
  const model = callChoseModel(record) ? `\n[subagent model: ${modelProvenanceText(record)}]` : "";
  const deliverable = record.deliverable && deliverableNoteText(record.deliverable);
  const deliverableLine = deliverable ? `[subagent deliverable: ${deliverable}]\n` : "";
  const verify = record.verify && oneLine(verifyNoteText(record.verify), VERIFY_LINE_MAX);
  const verifyLine = verify ? `[subagent verify: ${verify}]\n` : "";
  if (record.status === "succeeded")
    return `${output}\n\n${asked}${deliverableLine}${verifyLine}${sessionLine(record.taskId)}${model}${notGranted}${cappedNote}${usageNote}${worktree}`;
  const lines = [`Subagent ${record.agent} ${budgetAwareStatus(record)}.`];
  const reason = stopReasonText(record, limits.activityTimeoutMs, limits.hardTimeoutMs);
  if (reason) lines.push(`- Stop reason: ${reason}`);
  if (record.errorMessage && record.status !== "stopped") lines.push(`- Error: ${inertChildText(record.errorMessage)}`);
  if (budget) lines.push(`- Budget: ${budget}`);
  if (verify) lines.push(`- Verify: ${verify}`);
  if (record.origin?.sandbox) lines.push(`- Sandbox: ${record.origin.sandbox}`);
  if (record.origin?.toolsNotGranted) lines.push(`- Note: ${record.origin.toolsNotGranted}`);
  if (callChoseModel(record)) lines.push(`- Model: ${modelProvenanceText(record)}`);
  lines.push(`- Duration: ${formatDuration(record.durationMs)} · Usage: ${formatUsage(record.usage)}`);
  if (record.usageNote) lines.push(`- Usage note: ${record.usageNote}`);
  if (record.stderrTail) {
    const tail = inertChildText(record.stderrTail.split("\n").slice(-10).join("\n"));
    lines.push("- Stderr (last lines):", tail);
  }
  if (isPartialRecord(record)) {
    const partial = shownOutput({ ...record, output });
    if (partial) lines.push("", partial);
  } else if (output.trim()) lines.push("", "Output so far:", output);
  if (record.unansweredQuestions?.length) lines.push("", ...record.unansweredQuestions);
  lines.push("", sessionLine(record.taskId));
  if (record.worktree) lines.push("", worktreeBlock(record.worktree));
  // The error and stderr come from the child: nothing in them may drive the terminal that shows this.
  return stripTerminalControls(lines.join("\n"));
}

/*
 * A blocking dispatch (print, JSON and RPC mode): run the child to the end while streaming progress to the
 * caller, record the result on disk, and return it as the tool's result.
 */
/** How often the caller hears from a blocking run even when nothing changed (a heartbeat). */
export const HEARTBEAT_MS = 10_000;
const PROGRESS_TICK_MS = 1000;

export interface SyncProgress {
  taskId: string;
  agent: string;
  phase: string;
  elapsedMs: number;
  lastTool?: string;
  usage: string;
  /** Tool calls the child made so far (absent in progress made elsewhere). */
  toolCalls?: number;
}

export interface SyncRunOptions {
  agentDir: string;
  settings: RunSettings;
  signal?: AbortSignal;
  parentSessionId?: string;
  onProgress?: (text: string, progress: SyncProgress) => void;
  /** Told the run's progress at its start and every second after, changed or not (print mode's stderr lines). */
  onTick?: (progress: SyncProgress) => void;
  now?: () => number;
  /**
   * How much of the output the model gets (default: PI_SUBAGENT_MAX_OUTPUT_CHARS,
   * see output-limit.ts).
   */
  maxOutputChars?: number;
  /** Where the child's dialogs go (absent: nobody; each is answered cancelled). */
  dialogs?: DialogRoute;
  /** Where the lifecycle events go (pi's event bus); none when absent. */
  events?: LifecycleSink;
  /** The blocking batch or chain this run is a part of: its record names it, so the workflow's id finds it. */
  workflow?: WorkflowMembership;
}

function progressText(agent: string, state: RunState, elapsedMs: number): string {
  return `${agent}: ${phaseLabel(state)} (${formatElapsed(elapsedMs)})`;
}

export async function runSync(
  prepared: PreparedRun,
  options: SyncRunOptions,
): Promise<{ text: string; details: SubagentResultDetails; record: TaskRecord }> {
  const now = options.now ?? Date.now;
  const dispatchedAt = now();
  let lastEvents = -1;
  let lastSentAt = 0;
  const progressOf = (state: RunState, at: number): SyncProgress => {
    const tool = state.lastTool;
    return {
      taskId: prepared.taskId,
      agent: prepared.agent.name,
      phase: phaseLabel(state),
      elapsedMs: at - dispatchedAt,
      lastTool: tool ? (tool.summary ? `${tool.name}: ${tool.summary}` : tool.name) : undefined,
      usage: formatUsage(state.usage),
      toolCalls: state.toolCalls,
    };
  };
  const report = (state: RunState, force: boolean) => {
    if (!options.onProgress && !options.onTick) return;
    const at = now();
    try {
      options.onTick?.(progressOf(state, at));
    } catch {
      // As below: a courtesy that must never cost the run.
    }
    if (!options.onProgress) return;
    if (!force && state.events === lastEvents && at - lastSentAt < HEARTBEAT_MS) return;
    lastEvents = state.events;
    lastSentAt = at;
    try {
      options.onProgress(progressText(prepared.agent.name, state, at - dispatchedAt), progressOf(state, at));
    } catch {
      // Progress is a courtesy: a listener that throws (inside the heartbeat interval, where nothing would
      // catch it and pi would crash) must not end the run or lose its result.
    }
  };
  const context = {
    taskId: prepared.taskId,
    agent: prepared.agent.name,
    task: prepared.task,
    mode: "sync" as const,
    sessionFile: prepared.sessionFile,
    cwd: prepared.cwd,
    dispatchedAt,
    parentSessionId: options.parentSessionId,
    budget: prepared.budget?.limits,
    budgetNotes: prepared.budget?.capped,
    origin: prepared.origin,
    resolved: prepared.resolved,
    worktree: prepared.worktree,
    ...(options.workflow ? { workflow: options.workflow } : {}),
  };
  const events = options.events;
  events?.(LIFECYCLE_CHANNELS.queued, queuedEvent(context, false, dispatchedAt));
  const onSpawned = (pid: number) => {
    prepared.childStarted?.(pid);
    events?.(LIFECYCLE_CHANNELS.started, startedEvent(context, pid, now()));
  };
  let removeExitHook: (() => void) | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let outcome;
  // A file that could not be removed at the end (read-only or full disk) must not cost the result: it is said
  // once on stderr and the result is returned all the same.
  let cleanupError: unknown;
  const releaseQuietly = () => {
    try {
      prepared.release();
    } catch (error) {
      cleanupError ??= error;
    }
  };
  // Everything from the spawn on is inside the try: a spawn that throws still releases the run lock and the
  // agent's prompt file.
  try {
    const handle = startRun({
      command: prepared.command,
      cwd: prepared.cwd,
      activityTimeoutMs: options.settings.activityTimeoutMs,
      hardTimeoutMs: options.settings.hardTimeoutMs,
      graceMs: options.settings.killGraceMs,
      signal: options.signal,
      onSpawned,
      budget: prepared.budget?.limits,
      loopGuard: prepared.loopGuard,
      dialogs: options.dialogs,
      now,
      settle: settleChecksFor(prepared),
      warm: prepared.warm,
    });
    // If pi itself is killed mid-run (Ctrl+C on `pi -p`, SIGTERM), the record is still written, synchronously,
    // before the child guard ends the child's tree.
    removeExitHook = onProcessExit(() => {
      const record = recordFromOutcome({ ...context, cancelledBy: "none" }, outcomeAtExit(handle, now()));
      saveRecordQuietly(options.agentDir, record);
      releaseQuietly();
    });
    report(handle.state, true);
    ticker = setInterval(() => report(handle.state, false), PROGRESS_TICK_MS);
    outcome = await handle.done;
  } finally {
    removeExitHook?.();
    clearInterval(ticker);
    releaseQuietly();
  }
  const record = recordFromOutcome(context, outcome);
  if (cleanupError !== undefined) process.stderr.write(`${cleanupFailureNotice(record, cleanupError)}\n`);
  saveLongOutput(options.agentDir, record, options.maxOutputChars ?? readMaxOutputChars());
  // A blocking result is delivered as the tool's return value, right after this write.
  record.delivered = true;
  record.deliveredAt = now();
  // A failed write (read-only or full disk) must not cost the result: it is returned all the same.
  const saveError = saveRecordQuietly(options.agentDir, record);
  if (saveError)
    process.stderr.write(
      `${saveFailureNotice("record", record, recordPath(options.agentDir, record.taskId), saveError, RETURNED)}\n`,
    );
  events?.(LIFECYCLE_CHANNELS.ended, endedEvent(record, now()));
  // Returned as the tool's result right after this: the blocking call's delivery.
  events?.(LIFECYCLE_CHANNELS.delivered, deliveredEvent(record, record.deliveredAt ?? now()));
  return { text: syncResultText(record, options.settings), details: detailsFromRecord(record), record };
}
