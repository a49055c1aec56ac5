// @ts-check
/**
 * Runs one child pi: spawns it in its own process group, feeds its event stream to the reducer, enforces the
 * activity and hard timeouts, and stops it through the one stop sequence (ask it to abort, keep what it
 * produced, then end the whole process tree). Both the synchronous and the asynchronous dispatch paths use
 * this one runner.
 *
 * An RPC child (the default) gets its task as an RPC `prompt` on stdin, can be steered while it works, and is
 * ended cleanly by closing its stdin once its run is over (`agent_end` with no retry pending): pi's RPC mode
 * shuts down and exits 0 when its input ends (verified in pi 0.73.1 and 1.x, `modes/rpc/rpc-mode.js`). A JSON
 * child (`PI_SUBAGENT_CHILD_MODE=json`) gets the task as its last argument and exits by itself.
 */
import { spawn } from "node:child_process";
import { BudgetWatch } from "../budget/budget-watch.js";
/** @import { BudgetHit, BudgetLimits } from "../budget/limits.js" */
import { classifyRun } from "./classify.js";
import { trackChild, untrackChild } from "./child-guard.js";
/** @import { ChildCommand } from "./command-line.js" */
import { applyLine, initialRunState } from "./event-reducer.js";
import { LineSplitter } from "./line-splitter.js";
/** @import { SplitLine } from "./line-splitter.js" */
import { toolLinesOf } from "./partial-output.js";
import { DEFAULT_GRACE_MS, terminateTree } from "./process-tree.js";
/** @import { TreeTermination } from "./process-tree.js" */
import { classifyRpcLine, encodeRpcCommand } from "./rpc-protocol.js";
/** @import { RpcCommand } from "./rpc-protocol.js" */
import { readStopGraceMs, StopSequence } from "./stop-sequence.js";
import { TASK_MARKER_ENV } from "./task-marker.js";
/** @import { RunOutcome, RunState, StopCause } from "./types.ts" */

export const STDERR_TAIL_CHARS = 4096;
/** How long to wait for the child's pipes to drain after it exited (a grandchild may hold them open). */
const DRAIN_AFTER_EXIT_MS = 2000;
/** How long an RPC child may take to exit after its input was closed before its tree is ended. */
const EXIT_AFTER_INPUT_END_MS = 10_000;

/**
 * @typedef {object} RunSpec
 * @property {ChildCommand} command
 * @property {string} cwd
 * @property {number} activityTimeoutMs No output on stdout or stderr for this long ends the run (`activity_timeout`);
 *   <= 0 disables.
 * @property {number} hardTimeoutMs Absolute limit (`hard_timeout`); <= 0 disables.
 * @property {number} [graceMs] Kill grace: SIGTERM to SIGKILL.
 * @property {number} [stopGraceMs] How long a stop waits for an RPC child to end its turn after `abort` (default:
 *   PI_SUBAGENT_STOP_GRACE_MS).
 * @property {BudgetLimits} [budget] Limits on turns, tokens and cost: reaching one (when the child is about to go on)
 *   stops the run as `stopped`.
 * @property {AbortSignal} [signal] Ends the run as `aborted` (Esc in pi for a synchronous call).
 * @property {(state: RunState) => void} [onUpdate] Called after each chunk of output was applied (the caller throttles
 *   what it shows).
 * @property {(pid: number) => void} [onSpawned] Called with the child's pid right after the spawn (the run lock names
 *   it).
 * @property {() => number} [now] Clock, for tests.
 */

/**
 * What became of a message sent to a running child.
 * @typedef {"sent" | "ended" | "unsupported"} SteerResult
 */

/**
 * A running child. Its members (a type literal, so that the read-only ones stay read-only):
 * - `stop(cause)`: Stops the run from outside; the outcome records `cause`. Returns false, changing nothing, when
 *   the run is already over (its answer is complete, or the child has exited), so a stop never contradicts the
 *   result. A second stop also returns false (the first cause wins).
 * - `over`: True once the run can no longer be stopped or steered (its answer is complete or the child is gone).
 * - `steer(text)`: Sends text to the child as a steer (delivered before its next model call).
 * @typedef {{
 *   readonly pid: number | undefined;
 *   readonly state: RunState;
 *   readonly startedAt: number;
 *   readonly done: Promise<RunOutcome>;
 *   stop(cause: StopCause): boolean;
 *   readonly over: boolean;
 *   steer(text: string): SteerResult;
 * }} RunHandle
 */

const AGENT_END_PREFIX = '{"type":"agent_end"';

/**
 * @param {RunSpec} spec
 * @returns {RunHandle}
 */
export function startRun(spec) {
  const now = spec.now ?? Date.now;
  const startedAt = now();
  const state = initialRunState(startedAt);
  const rpc = spec.command.mode === "rpc";
  const killGraceMs = spec.graceMs ?? DEFAULT_GRACE_MS;
  let stderrTail = "";
  /** @type {TreeTermination | undefined} */
  let termination;
  let lastActivity = startedAt;
  /** @type {NodeJS.Timeout | undefined} */
  let activityTimer;
  /** @type {NodeJS.Timeout | undefined} */
  let hardTimer;
  /** @type {NodeJS.Timeout | undefined} */
  let exitFallbackTimer;
  /** The child's run is over: `agent_end` with no retry pending, or the prompt was refused. */
  let runOver = false;
  let exited = false;
  let finished = false;
  let inputOpen = rpc;
  /** @type {string | undefined} */
  let promptRefusal;
  const budgetWatch = BudgetWatch.of(spec.budget);
  /** @type {BudgetHit | undefined} */
  let budgetHit;

  const args = rpc ? spec.command.args : [...spec.command.args, spec.command.prompt];
  const child = spawn(spec.command.command, args, {
    cwd: spec.cwd,
    env: spec.command.env,
    stdio: [rpc ? "pipe" : "ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid;
  // The task marker in the child's environment also finds what left its tree (`setsid cmd &`).
  const marker = spec.command.env?.[TASK_MARKER_ENV];
  if (pid !== undefined) {
    trackChild(pid, marker);
    spec.onSpawned?.(pid);
  }
  // A child that died early closes its stdin: a late write must not crash pi with EPIPE.
  child.stdin?.on("error", () => {
    inputOpen = false;
  });

  /**
   * @param {RpcCommand} command
   * @returns {boolean}
   */
  const send = (command) => {
    if (!inputOpen || !child.stdin) return false;
    child.stdin.write(encodeRpcCommand(command));
    return true;
  };
  const closeInput = () => {
    if (!inputOpen) return;
    inputOpen = false;
    child.stdin?.end();
    // pi exits on its own when its input ends; if it does not, end its tree (the answer is already complete).
    exitFallbackTimer = setTimeout(() => {
      if (!exited && pid !== undefined) termination ??= terminateTree(pid, killGraceMs, marker);
    }, EXIT_AFTER_INPUT_END_MS);
    exitFallbackTimer.unref();
  };

  /** @type {StopSequence<StopCause>} */
  const stopSequence = new StopSequence(
    {
      requestAbort: () => send({ type: "abort" }),
      terminateTree: () => {
        if (pid !== undefined && !exited) termination ??= terminateTree(pid, killGraceMs, marker);
      },
      setTimer: (callback, ms) => {
        const timer = setTimeout(callback, ms);
        timer.unref();
        return timer;
      },
      clearTimer: (timer) => clearTimeout(/** @type {NodeJS.Timeout} */ (timer)),
    },
    rpc ? (spec.stopGraceMs ?? readStopGraceMs()) : 0,
  );

  /**
   * @param {StopCause} why
   * @returns {boolean}
   */
  const stop = (why) => {
    if (runOver || exited || finished) return false;
    return stopSequence.begin(why);
  };

  /** @param {number} delay */
  const armActivityTimer = (delay) => {
    activityTimer = setTimeout(onActivityTimer, delay);
  };
  const onActivityTimer = () => {
    if (state.retryPending) {
      // pi is waiting out a retry delay on purpose; silence is expected.
      lastActivity = now();
      return armActivityTimer(spec.activityTimeoutMs);
    }
    const idle = now() - lastActivity;
    if (idle >= spec.activityTimeoutMs) stop("activity_timeout");
    else armActivityTimer(spec.activityTimeoutMs - idle);
  };
  if (spec.activityTimeoutMs > 0) armActivityTimer(spec.activityTimeoutMs);
  if (spec.hardTimeoutMs > 0) hardTimer = setTimeout(() => stop("hard_timeout"), spec.hardTimeoutMs);

  const onAbort = () => stop("aborted");
  if (spec.signal?.aborted) queueMicrotask(onAbort);
  else spec.signal?.addEventListener("abort", onAbort, { once: true });

  /** @param {SplitLine} line */
  const onLine = (line) => {
    const text = line.text ?? line.head ?? "";
    if (rpc && line.text !== undefined) {
      const rpcLine = classifyRpcLine(line.text);
      if (rpcLine.kind === "dialog") {
        // Nobody can answer a dialog inside a subagent: cancel it so the child does not wait forever.
        send({ type: "extension_ui_response", id: rpcLine.id, cancelled: true });
        return;
      }
      if (rpcLine.kind === "response") {
        if (rpcLine.command === "prompt" && !rpcLine.success) {
          promptRefusal = `pi refused the task: ${rpcLine.error ?? "no reason given"}`;
          runOver = true;
          closeInput();
        }
        return;
      }
    }
    applyLine(state, line, now());
    const hit = budgetWatch?.afterLine(state);
    if (hit && stop("budget")) budgetHit = hit;
    if (text.startsWith(AGENT_END_PREFIX) && !state.retryPending) {
      if (stopSequence.phase === "asking") stopSequence.turnEnded();
      else if (stopSequence.phase === "idle") runOver = true;
      closeInput();
    }
  };

  const splitter = new LineSplitter(onLine);
  // Both pipes were requested above, so they exist.
  /** @type {NonNullable<typeof child.stdout>} */ (child.stdout).setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
    lastActivity = now();
    splitter.push(chunk);
    spec.onUpdate?.(state);
  });
  /** @type {NonNullable<typeof child.stderr>} */ (child.stderr).setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
    lastActivity = now();
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });

  if (rpc) send({ type: "prompt", message: spec.command.prompt });

  /** @type {Promise<RunOutcome>} */
  const done = new Promise((resolve) => {
    /** @type {string | undefined} */
    let spawnError;
    /**
     * @param {number | null} exitCode
     * @param {string | null} signal
     */
    const finish = (exitCode, signal) => {
      if (finished) return;
      finished = true;
      clearTimeout(activityTimer);
      clearTimeout(hardTimer);
      clearTimeout(exitFallbackTimer);
      spec.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) untrackChild(pid);
      splitter.end();
      state.phase = "done";
      if (promptRefusal && !state.errorMessage) state.errorMessage = promptRefusal;
      const finishedAt = now();
      const cause = stopSequence.cause;
      // A run whose answer was complete is judged by its answer, not by how its process was made to exit.
      const effectiveExit = runOver && !cause && !promptRefusal && exitCode !== 0 ? 0 : exitCode;
      const verdict = classifyRun(state, { exitCode: effectiveExit, signal, cause, spawnError, budgetHit });
      resolve({
        status: verdict.status,
        exitCode,
        signal,
        stopReason: verdict.stopReason,
        errorMessage: verdict.errorMessage,
        output: cause ? state.lastText : state.finalText,
        usage: { ...state.usage },
        model: state.provider && state.model ? `${state.provider}/${state.model}` : state.model,
        startedAt,
        finishedAt,
        durationMs: finishedAt - startedAt,
        stderrTail: stderrTail.trim(),
        partial: cause ? { text: state.lastText, tools: toolLinesOf(state.activity) } : undefined,
        budgetHit: cause === "budget" ? budgetHit : undefined,
      });
    };
    child.on("error", (error) => {
      spawnError = `could not start the subagent process: ${error.message}`;
      exited = true;
      inputOpen = false;
      stopSequence.childExited();
      finish(null, null);
    });
    child.on("exit", (exitCode, signal) => {
      exited = true;
      inputOpen = false;
      stopSequence.childExited();
      termination?.rootExited();
      // Let the pipes drain, but do not wait for a grandchild that keeps them open.
      const drain = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(exitCode, signal);
      }, DRAIN_AFTER_EXIT_MS);
      child.once("close", () => {
        clearTimeout(drain);
        finish(exitCode, signal);
      });
    });
  });

  /**
   * @param {string} text
   * @returns {SteerResult}
   */
  const steer = (text) => {
    if (!rpc) return "unsupported";
    if (runOver || exited || finished || stopSequence.phase !== "idle") return "ended";
    return send({ type: "steer", message: text }) ? "sent" : "ended";
  };

  return {
    pid,
    state,
    startedAt,
    done,
    stop,
    steer,
    get over() {
      return runOver || exited || finished || stopSequence.phase !== "idle";
    },
  };
}
