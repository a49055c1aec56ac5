/**
 * Runs one child pi: spawns it in its own process group, feeds its JSON event stream to the reducer, enforces
 * the activity and hard timeouts, and ends the whole process tree on stop. Both the synchronous and the
 * asynchronous dispatch paths use this one runner.
 */
import { spawn } from "node:child_process";
import { classifyRun } from "./classify.ts";
import { trackChild, untrackChild } from "./child-guard.ts";
import type { ChildCommand } from "./command-line.ts";
import { applyLine, initialRunState } from "./event-reducer.ts";
import { LineSplitter } from "./line-splitter.ts";
import { DEFAULT_GRACE_MS, terminateTree, type TreeTermination } from "./process-tree.ts";
import { TASK_MARKER_ENV } from "./task-marker.ts";
import type { RunOutcome, RunState, StopCause } from "./types.ts";

export const STDERR_TAIL_CHARS = 4096;
/** How long to wait for the child's pipes to drain after it exited (a grandchild may hold them open). */
const DRAIN_AFTER_EXIT_MS = 2000;

export interface RunSpec {
  command: ChildCommand;
  cwd: string;
  /** No output on stdout or stderr for this long ends the run (`activity_timeout`); <= 0 disables. */
  activityTimeoutMs: number;
  /** Absolute limit (`hard_timeout`); <= 0 disables. */
  hardTimeoutMs: number;
  graceMs?: number;
  /** Ends the run as `aborted` (Esc in pi for a synchronous call). */
  signal?: AbortSignal;
  /** Called after each chunk of output was applied (the caller throttles what it shows). */
  onUpdate?: (state: RunState) => void;
  /** Called with the child's pid right after the spawn (the run lock names it). */
  onSpawned?: (pid: number) => void;
  /** Clock, for tests. */
  now?: () => number;
}

export interface RunHandle {
  readonly pid: number | undefined;
  readonly state: RunState;
  readonly startedAt: number;
  readonly done: Promise<RunOutcome>;
  /** Ends the run from outside; the outcome records `cause`. Idempotent (the first cause wins). */
  stop(cause: StopCause): void;
}

export function startRun(spec: RunSpec): RunHandle {
  const now = spec.now ?? Date.now;
  const startedAt = now();
  const state = initialRunState(startedAt);
  let stderrTail = "";
  let cause: StopCause | undefined;
  let termination: TreeTermination | undefined;
  let lastActivity = startedAt;
  let activityTimer: NodeJS.Timeout | undefined;
  let hardTimer: NodeJS.Timeout | undefined;

  const child = spawn(spec.command.command, spec.command.args, {
    cwd: spec.cwd,
    env: spec.command.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid;
  // The task marker in the child's environment also finds what left its tree (`setsid cmd &`).
  const marker = spec.command.env?.[TASK_MARKER_ENV];
  if (pid !== undefined) {
    trackChild(pid, marker);
    spec.onSpawned?.(pid);
  }

  const stop = (why: StopCause) => {
    if (cause !== undefined || exited) return;
    cause = why;
    if (pid !== undefined) termination = terminateTree(pid, spec.graceMs ?? DEFAULT_GRACE_MS, marker);
  };

  const armActivityTimer = (delay: number) => {
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

  const splitter = new LineSplitter((line) => applyLine(state, line, now()));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    lastActivity = now();
    splitter.push(chunk);
    spec.onUpdate?.(state);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    lastActivity = now();
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });

  let exited = false;
  const done = new Promise<RunOutcome>((resolve) => {
    let spawnError: string | undefined;
    let finished = false;
    const finish = (exitCode: number | null, signal: string | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(activityTimer);
      clearTimeout(hardTimer);
      spec.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) untrackChild(pid);
      splitter.end();
      state.phase = "done";
      const finishedAt = now();
      const verdict = classifyRun(state, { exitCode, signal, cause, spawnError });
      resolve({
        status: verdict.status,
        exitCode,
        signal,
        stopReason: verdict.stopReason,
        errorMessage: verdict.errorMessage,
        output: state.finalText,
        usage: { ...state.usage },
        model: state.provider && state.model ? `${state.provider}/${state.model}` : state.model,
        startedAt,
        finishedAt,
        durationMs: finishedAt - startedAt,
        stderrTail: stderrTail.trim(),
      });
    };
    child.on("error", (error) => {
      spawnError = `could not start the subagent process: ${error.message}`;
      exited = true;
      finish(null, null);
    });
    child.on("exit", (exitCode, signal) => {
      exited = true;
      termination?.rootExited();
      // Let the pipes drain, but do not wait for a grandchild that keeps them open.
      const drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(exitCode, signal);
      }, DRAIN_AFTER_EXIT_MS);
      child.once("close", () => {
        clearTimeout(drain);
        finish(exitCode, signal);
      });
    });
  });

  return { pid, state, startedAt, done, stop };
}
