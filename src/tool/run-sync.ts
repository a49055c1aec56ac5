/**
 * A blocking dispatch (print, JSON and RPC mode): run the child to the end while streaming progress to the
 * caller, record the result on disk, and return it as the tool's result.
 */
import { formatElapsed, formatUsage } from "../shared/format.ts";
import type { RunSettings } from "../shared/run-settings.ts";
import { phaseLabel } from "../run/phase-label.ts";
import { onProcessExit } from "../run/child-guard.ts";
import { outcomeAtExit } from "../run/outcome-at-exit.ts";
import { startRun } from "../run/runner.ts";
import type { RunState } from "../run/types.ts";
import { detailsFromRecord } from "../records/details.ts";
import type { SubagentResultDetails } from "../records/details.ts";
import { readMaxOutputChars, saveLongOutput } from "../records/output-limit.ts";
import { recordFromOutcome } from "../records/record-from-outcome.ts";
import { cleanupFailureNotice, RETURNED, saveFailureNotice } from "../delivery/save-failures.ts";
import { recordPath } from "../records/record-store.ts";
import { saveRecordQuietly } from "../records/save-record.ts";
import type { TaskRecord } from "../records/types.ts";
import type { PreparedRun } from "./prepare-dispatch.ts";
import type { DialogRoute } from "../dialogs/dialog-bridge.ts";
import { syncResultText } from "./sync-result.ts";
import { deliveredEvent, endedEvent, LIFECYCLE_CHANNELS, queuedEvent, startedEvent } from "../delivery/lifecycle-events.ts";
import type { LifecycleSink } from "../delivery/lifecycle-events.ts";

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
}

export function progressText(agent: string, state: RunState, elapsedMs: number): string {
  return `${agent}: ${phaseLabel(state)} (${formatElapsed(elapsedMs)})`;
}

export async function runSync(prepared: PreparedRun, options: SyncRunOptions): Promise<{ text: string; details: SubagentResultDetails; record: TaskRecord }> {
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
    mode: ("sync" as const),
    sessionFile: prepared.sessionFile,
    cwd: prepared.cwd,
    dispatchedAt,
    parentSessionId: options.parentSessionId,
    budget: prepared.budget?.limits,
    budgetNotes: prepared.budget?.capped,
    origin: prepared.origin,
    resolved: prepared.resolved,
    worktree: prepared.worktree,
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
      dialogs: options.dialogs,
      now,
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
  if (saveError) process.stderr.write(`${saveFailureNotice("record", record, recordPath(options.agentDir, record.taskId), saveError, RETURNED)}\n`);
  events?.(LIFECYCLE_CHANNELS.ended, endedEvent(record, now()));
  // Returned as the tool's result right after this: the blocking call's delivery.
  events?.(LIFECYCLE_CHANNELS.delivered, deliveredEvent(record, record.deliveredAt ?? now()));
  return { text: syncResultText(record, options.settings), details: detailsFromRecord(record), record };
}
