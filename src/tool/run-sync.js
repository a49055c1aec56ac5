// @ts-check
/**
 * A blocking dispatch (print, JSON and RPC mode): run the child to the end while streaming progress to the
 * caller, record the result on disk, and return it as the tool's result.
 */
import { formatElapsed, formatUsage } from "../shared/format.js";
/** @import { RunSettings } from "../shared/run-settings.js" */
import { phaseLabel } from "../run/phase-label.js";
import { onProcessExit } from "../run/child-guard.js";
import { outcomeAtExit } from "../run/outcome-at-exit.js";
import { startRun } from "../run/runner.js";
/** @import { RunState } from "../run/types.ts" */
import { detailsFromRecord } from "../tasks/details.js";
/** @import { SubagentResultDetails } from "../tasks/details.js" */
import { readMaxOutputChars, saveLongOutput } from "../tasks/output-limit.js";
import { recordFromOutcome } from "../tasks/record-from-outcome.js";
import { RETURNED, saveFailureNotice } from "../delivery/save-failures.js";
import { recordPath } from "../tasks/record-store.js";
import { saveRecordQuietly } from "../tasks/save-record.js";
/** @import { TaskRecord } from "../tasks/types.ts" */
/** @import { PreparedRun } from "./prepare-dispatch.js" */
import { syncResultText } from "./sync-result.js";

/** How often the caller hears from a blocking run even when nothing changed (a heartbeat). */
export const HEARTBEAT_MS = 10_000;
const PROGRESS_TICK_MS = 1000;

/**
 * @typedef {object} SyncProgress
 * @property {string} taskId
 * @property {string} agent
 * @property {string} phase
 * @property {number} elapsedMs
 * @property {string} [lastTool]
 * @property {string} usage
 */

/**
 * @typedef {object} SyncRunOptions
 * @property {string} agentDir
 * @property {RunSettings} settings
 * @property {AbortSignal} [signal]
 * @property {string} [parentSessionId]
 * @property {(text: string, progress: SyncProgress) => void} [onProgress]
 * @property {() => number} [now]
 * @property {number} [maxOutputChars] How much of the output the model gets (default: PI_SUBAGENT_MAX_OUTPUT_CHARS,
 *   see output-limit.js).
 */

/**
 * @param {string} agent
 * @param {RunState} state
 * @param {number} elapsedMs
 * @returns {string}
 */
export function progressText(agent, state, elapsedMs) {
  return `${agent}: ${phaseLabel(state)} (${formatElapsed(elapsedMs)})`;
}

/**
 * @param {PreparedRun} prepared
 * @param {SyncRunOptions} options
 * @returns {Promise<{ text: string; details: SubagentResultDetails; record: TaskRecord }>}
 */
export async function runSync(prepared, options) {
  const now = options.now ?? Date.now;
  const dispatchedAt = now();
  let lastEvents = -1;
  let lastSentAt = 0;
  /**
   * @param {RunState} state
   * @param {boolean} force
   */
  const report = (state, force) => {
    if (!options.onProgress) return;
    const at = now();
    if (!force && state.events === lastEvents && at - lastSentAt < HEARTBEAT_MS) return;
    lastEvents = state.events;
    lastSentAt = at;
    const elapsedMs = at - dispatchedAt;
    const tool = state.lastTool;
    try {
      options.onProgress(progressText(prepared.agent.name, state, elapsedMs), {
        taskId: prepared.taskId,
        agent: prepared.agent.name,
        phase: phaseLabel(state),
        elapsedMs,
        lastTool: tool ? (tool.summary ? `${tool.name}: ${tool.summary}` : tool.name) : undefined,
        usage: formatUsage(state.usage),
      });
    } catch {
      // Progress is a courtesy: a listener that throws (inside the heartbeat interval, where nothing would
      // catch it and pi would crash) must not end the run or lose its result.
    }
  };
  const context = {
    taskId: prepared.taskId,
    agent: prepared.agent.name,
    task: prepared.task,
    mode: /** @type {const} */ ("sync"),
    sessionFile: prepared.sessionFile,
    cwd: prepared.cwd,
    dispatchedAt,
    parentSessionId: options.parentSessionId,
    budget: prepared.budget?.limits,
    budgetNotes: prepared.budget?.capped,
    origin: prepared.origin,
    worktree: prepared.worktree,
  };
  /** @type {(() => void) | undefined} */
  let removeExitHook;
  /** @type {NodeJS.Timeout | undefined} */
  let ticker;
  let outcome;
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
      onSpawned: prepared.childStarted,
      budget: prepared.budget?.limits,
      now,
    });
    // If pi itself is killed mid-run (Ctrl+C on `pi -p`, SIGTERM), the record is still written, synchronously,
    // before the child guard ends the child's tree.
    removeExitHook = onProcessExit(() => {
      const record = recordFromOutcome({ ...context, cancelledBy: "none" }, outcomeAtExit(handle, now()));
      saveRecordQuietly(options.agentDir, record);
      prepared.release();
    });
    report(handle.state, true);
    ticker = setInterval(() => report(handle.state, false), PROGRESS_TICK_MS);
    outcome = await handle.done;
  } finally {
    removeExitHook?.();
    clearInterval(ticker);
    prepared.release();
  }
  const record = recordFromOutcome(context, outcome);
  saveLongOutput(options.agentDir, record, options.maxOutputChars ?? readMaxOutputChars());
  // A blocking result is delivered as the tool's return value, right after this write.
  record.delivered = true;
  record.deliveredAt = now();
  // A failed write (read-only or full disk) must not cost the result: it is returned all the same.
  const saveError = saveRecordQuietly(options.agentDir, record);
  if (saveError) process.stderr.write(`${saveFailureNotice("record", record, recordPath(options.agentDir, record.taskId), saveError, RETURNED)}\n`);
  return { text: syncResultText(record, options.settings), details: detailsFromRecord(record), record };
}
