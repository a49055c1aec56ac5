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
import { spawn, type ChildProcess } from "node:child_process";
import { BudgetWatch, readStopGraceMs, StopSequence } from "./stop-sequence.ts";
import type { BudgetHit, BudgetLimits } from "../budget/limits.ts";
import { usageNoteText } from "../budget/usage.ts";
import { LoopWatch, loopNudgeText, type LoopHit } from "./loop-guard.ts";
import type { LoopGuardSetting } from "../budget/loop-setting.ts";
import { classifyRun, toolLinesOf } from "./outcome.ts";
import {
  childStarted,
  trackChild,
  untrackChild,
  DEFAULT_GRACE_MS,
  terminateTree,
  endLeftovers,
  type TreeTermination,
} from "./processes.ts";
import type { ChildCommand } from "./command-line.ts";
import { applyLine, initialRunState, type RunOutcome, type RunState, type StopCause } from "./event-reducer.ts";
import {
  LineSplitter,
  classifyRpcLine,
  encodeRpcCommand,
  isSteerTakenIn,
  SteerBatch,
  STRANDED_STEER_PROMPT,
  type SplitLine,
  type RpcCommand,
} from "./rpc.ts";
import { DialogBridge, closeReasonOf, type DialogRoute } from "../dialogs/child-dialogs.ts";
import { TASK_MARKER_ENV } from "./parent-watchdog.ts";
import { openHandedFiles } from "../sandbox/handed-files.ts";
import { claimMountPoints, type MountPointClaim } from "../sandbox/mount-points.ts";
import { loginExpiredNote } from "../sandbox/hand-in.ts";
import { readFileSync } from "node:fs";
import { startAllowanceMs } from "../shared/run-settings.ts";

const STDERR_TAIL_CHARS = 4096;
/** How long to wait for the child's pipes to drain after it exited (a grandchild may hold them open). */
const DRAIN_AFTER_EXIT_MS = 2000;
/** How long an RPC child may take to exit after its input was closed before its tree is ended. */
const EXIT_AFTER_INPUT_END_MS = 10_000;

export interface RunSpec {
  command: ChildCommand;
  cwd: string;
  /**
   * No output on stdout or stderr for this long ends the run (`activity_timeout`);
   * <= 0 disables.
   */
  activityTimeoutMs: number;
  /** The quiet time allowed before the child's first output; by default the longer of the timeout and 60 s. */
  startAllowanceMs?: number;
  /** Absolute limit (`hard_timeout`); <= 0 disables. */
  hardTimeoutMs: number;
  /** Kill grace: SIGTERM to SIGKILL. */
  graceMs?: number;
  /**
   * How long a stop waits for an RPC child to end its turn after `abort` (default:
   * PI_SUBAGENT_STOP_GRACE_MS).
   */
  stopGraceMs?: number;
  /**
   * Limits on turns, tokens and cost: reaching one (when the child is about to go on)
   * stops the run as `stopped`.
   */
  budget?: BudgetLimits;
  /**
   * The loop guard (src/run/loop-guard.ts): the calls in a row that get the child a nudge (a steer), then a stop
   * as `stopped`; absent: the default, `off`: no guard.
   */
  loopGuard?: LoopGuardSetting;
  /** Ends the run as `aborted` (Esc in pi for a synchronous call). */
  signal?: AbortSignal;
  /**
   * Called after each chunk of output was applied (the caller throttles
   * what it shows).
   */
  onUpdate?: (state: RunState) => void;
  /**
   * Called with the child's pid right after the spawn (the run lock names
   * it).
   */
  onSpawned?: (pid: number) => void;
  /**
   * Where an RPC child's dialogs and notices go (the TUI: the person; elsewhere nobody, and the result says so).
   * Absent: every dialog is answered cancelled.
   */
  dialogs?: DialogRoute;
  /**
   * Asked each time an RPC child's run ends on its own (not stopped, no retry pending, no model error): a prompt
   * sends the still-live child back to work (its quiet time restarts, its budgets go on counting); nothing lets it
   * close. The checks made after a child's answer (issue 38's deliverable check, `verify`) live behind it.
   */
  settle?: SettleCheck;
  /** The pool of warm children's part in this run (src/warm/warm-pool.ts): absent, the child is started cold. */
  warm?: WarmSlot;
  /** Clock, for tests. */
  now?: () => number;
}

/** A run's link to the pool of warm children: where its child may come from, and who hears that it ended. */
export interface WarmSlot {
  /** An idle child already started with this run's very command line (made ready to run), or undefined. */
  take(): SpawnedChild | undefined;
  /** Told once the run's outcome is settled: the pool may start the next child of the same shape. Must not throw. */
  ended(outcome: RunOutcome): void;
}

/** The checks made on a child's answer while the child is still alive (see `RunSpec.settle`). */
export interface SettleCheck {
  /** Resolves the prompt that sends the child back to work, or undefined to let it close. Must not reject. */
  afterRun(state: Readonly<RunState>): Promise<string | undefined>;
  /** Adds what the checks found to the finished run's outcome (every child, JSON mode included); synchronous. */
  conclude?(outcome: RunOutcome, state: Readonly<RunState>): void;
}

/** What became of a message sent to a running child. */
export type SteerResult = "sent" | "ended" | "unsupported";

/**
 * A running child. Its members (a type literal, so that the read-only ones stay read-only):
 * - `stop(cause)`: Stops the run from outside; the outcome records `cause`. Returns false, changing nothing, when
 *  the run is already over (its answer is complete, or the child has exited), so a stop never contradicts the
 *  result. A second stop also returns false (the first cause wins).
 * - `over`: True once the run can no longer be stopped or steered (its answer is complete or the child is gone).
 * - `steer(text)`: Sends text to the child as a steer (delivered before its next model call).
 */
export type RunHandle = {
  readonly pid: number | undefined;
  readonly state: RunState;
  readonly startedAt: number;
  readonly done: Promise<RunOutcome>;
  stop(cause: StopCause): boolean;
  readonly over: boolean;
  steer(text: string): SteerResult;
};

const AGENT_END_PREFIX = '{"type":"agent_end"';

function readLoginText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** A child pi started, before or without a run attached to it. */
export interface SpawnedChild {
  child: ChildProcess;
  /** The task marker in its environment (`PI_SUBAGENT_TASK_ID`), which also finds what left its tree. */
  marker: string | undefined;
  /** A sandboxed child's copy of the login file as it was handed in, to explain a login that expired. */
  loginAtStart: string | undefined;
  /** Its sandbox's mount points on the host, released once its whole tree has ended. */
  mountPointClaim: MountPointClaim;
}

/**
 * Starts the child of `command` in its own process group, its sandbox's files opened only now (a queued task holds
 * no descriptors; the child has its own once spawned). A JSON child gets its prompt as the last argument.
 */
export function spawnChild(command: ChildCommand, cwd: string): SpawnedChild {
  const rpc = command.mode === "rpc";
  const args = rpc ? command.args : [...command.args, command.prompt];
  const loginSource = command.handIn?.find((source) => typeof source !== "string");
  const loginAtStart =
    loginSource && typeof loginSource !== "string" ? readLoginText(loginSource.loginCopyOf) : undefined;
  const handed = openHandedFiles(command.handIn ?? []);
  const mountPointClaim = claimMountPoints(command.mountPoints ?? []);
  try {
    const child = spawn(command.command, args, {
      cwd,
      env: command.env,
      stdio: [rpc ? "pipe" : "ignore", "pipe", "pipe", ...handed.fds],
      detached: true,
    });
    return { child, marker: command.env?.[TASK_MARKER_ENV], loginAtStart, mountPointClaim };
  } catch (error) {
    mountPointClaim.release();
    throw error;
  } finally {
    handed.close();
  }
}

export function startRun(spec: RunSpec): RunHandle {
  const now = spec.now ?? Date.now;
  const startedAt = now();
  const state = initialRunState(startedAt);
  const rpc = spec.command.mode === "rpc";
  const killGraceMs = spec.graceMs ?? DEFAULT_GRACE_MS;
  let stderrTail = "";
  let termination: TreeTermination | undefined;
  let lastActivity = startedAt;
  /** The child has written something: its quiet time counts from its last output, not from the spawn. */
  let started = false;
  let activityTimer: NodeJS.Timeout | undefined;
  let hardTimer: NodeJS.Timeout | undefined;
  let exitFallbackTimer: NodeJS.Timeout | undefined;
  /** The child's run is over: `agent_end` with no retry pending, or the prompt was refused. */
  let runOver = false;
  /** The settle check is deciding whether the child goes back to work: its silence is expected meanwhile. */
  let settling = false;
  let exited = false;
  let finished = false;
  let inputOpen = rpc;
  let promptRefusal: string | undefined;
  const budgetWatch = BudgetWatch.of(spec.budget);
  let budgetHit: BudgetHit | undefined;
  const loopWatch = LoopWatch.of(spec.loopGuard);
  let loopHit: LoopHit | undefined;
  /** Set once the child exited: the ending of what it left running, which the outcome waits for. */
  let leftoversEnded: Promise<unknown> = Promise.resolve();

  // A warm child (src/warm/warm-pool.ts) was started earlier with this very command line; otherwise start one now.
  const spawned = spec.warm?.take() ?? spawnChild(spec.command, spec.cwd);
  const { child, marker, loginAtStart, mountPointClaim } = spawned;
  const pid = child.pid;
  if (pid !== undefined) {
    trackChild(pid, marker, true);
    spec.onSpawned?.(pid);
  }
  // A child that died early closes its stdin: a late write must not crash pi with EPIPE.
  child.stdin?.on("error", () => {
    inputOpen = false;
  });

  const send = (command: RpcCommand): boolean => {
    if (!inputOpen || !child.stdin) return false;
    child.stdin.write(encodeRpcCommand(command));
    return true;
  };
  // A question waiting for the person keeps the run active; its answer restarts the quiet time.
  const dialogs = new DialogBridge(
    spec.dialogs,
    (response) => send(response),
    () => {
      lastActivity = now();
    },
  );
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

  // Messages that arrive while a steer waits in the child go together in the next one (one model call, not one each).
  const steerBatch = new SteerBatch((text) => send({ type: "steer", message: text }));

  const stopSequence: StopSequence<StopCause> = new StopSequence(
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
      clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout),
    },
    rpc ? (spec.stopGraceMs ?? readStopGraceMs()) : 0,
  );

  const stop = (why: StopCause): boolean => {
    if (runOver || exited || finished) return false;
    if (!stopSequence.begin(why)) return false;
    dialogs.closeAll(closeReasonOf(why), true);
    return true;
  };

  const armActivityTimer = (delay: number) => {
    activityTimer = setTimeout(onActivityTimer, delay);
  };
  const onActivityTimer = () => {
    if (state.retryPending || dialogs.waiting || settling) {
      // pi is waiting out a retry delay, or the person is being asked: silence is expected.
      lastActivity = now();
      return armActivityTimer(spec.activityTimeoutMs);
    }
    // After a failed model call pi may still announce a retry (its extensions' agent_end handlers run first):
    // that gap gets one more window, counted from the failure, before silence counts as a hang.
    const failedAt = state.failedCallAt;
    if (failedAt !== undefined && now() - failedAt < 2 * spec.activityTimeoutMs) {
      return armActivityTimer(failedAt + 2 * spec.activityTimeoutMs - now());
    }
    const idle = now() - lastActivity;
    // A pi that has not written yet is still starting (slow on a loaded machine): that is not silence, up to a limit.
    const limit = started
      ? spec.activityTimeoutMs
      : (spec.startAllowanceMs ?? startAllowanceMs(spec.activityTimeoutMs));
    if (idle >= limit) stop("activity_timeout");
    else armActivityTimer(limit - idle);
  };
  if (spec.activityTimeoutMs > 0) armActivityTimer(spec.activityTimeoutMs);
  if (spec.hardTimeoutMs > 0) hardTimer = setTimeout(() => stop("hard_timeout"), spec.hardTimeoutMs);

  const onAbort = () => stop("aborted");
  if (spec.signal?.aborted) queueMicrotask(onAbort);
  else spec.signal?.addEventListener("abort", onAbort, { once: true });

  const onLine = (line: SplitLine) => {
    const text = line.text ?? line.head ?? "";
    if (rpc && line.text !== undefined) {
      const rpcLine = classifyRpcLine(line.text);
      if (rpcLine.kind === "ui") {
        dialogs.handle(rpcLine.request);
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
    if (rpc && isSteerTakenIn(text)) steerBatch.takenIn();
    applyLine(state, line, now());
    const hit = budgetWatch?.afterLine(state);
    if (hit && stop("budget")) budgetHit = hit;
    const loop = loopWatch?.afterLine(state);
    // A JSON child cannot be steered: it gets no nudge, only the stop.
    if (loop?.kind === "nudge") steer(loopNudgeText(loop.hit));
    else if (loop?.kind === "stop" && stop("loop")) loopHit = loop.hit;
    if (text.startsWith(AGENT_END_PREFIX) && !state.retryPending) {
      // A message acknowledged as sent must reach the child: one more run takes in a steer its run ended before.
      if (
        stopSequence.phase === "idle" &&
        steerBatch.takeStranded() &&
        send({ type: "prompt", message: STRANDED_STEER_PROMPT })
      )
        return;
      if (stopSequence.phase === "asking") stopSequence.turnEnded();
      else if (stopSequence.phase === "idle") {
        if (spec.settle && rpc && state.stopReason !== "error") return settle(spec.settle);
        runOver = true;
      }
      closeInput();
    }
  };
  const settle = (check: SettleCheck) => {
    settling = true;
    void check.afterRun(state).then((prompt) => {
      settling = false;
      lastActivity = now();
      if (finished || exited || stopSequence.phase !== "idle") return;
      if (prompt !== undefined && send({ type: "prompt", message: prompt })) return;
      runOver = true;
      closeInput();
    });
  };

  /** Output restarts the quiet time; the first output also ends the start allowance, which a check before it may
   * have set the timer to (a slow start, then a hang, is stopped after the activity timeout, not the allowance). */
  const noteOutput = () => {
    lastActivity = now();
    if (started) return;
    started = true;
    if (pid !== undefined) childStarted(pid);
    if (activityTimer !== undefined && !finished) {
      clearTimeout(activityTimer);
      armActivityTimer(spec.activityTimeoutMs);
    }
  };

  const splitter = new LineSplitter(onLine);
  // Both pipes were requested above, so they exist.
  (child.stdout as NonNullable<typeof child.stdout>).setEncoding("utf8").on("data", (chunk: string) => {
    noteOutput();
    splitter.push(chunk);
    spec.onUpdate?.(state);
  });
  (child.stderr as NonNullable<typeof child.stderr>).setEncoding("utf8").on("data", (chunk: string) => {
    noteOutput();
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });

  if (rpc) send({ type: "prompt", message: spec.command.prompt });

  const done: Promise<RunOutcome> = new Promise((resolve) => {
    let spawnError: string | undefined;
    const finish = (exitCode: number | null, signal: string | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(activityTimer);
      clearTimeout(hardTimer);
      clearTimeout(exitFallbackTimer);
      spec.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) untrackChild(pid);
      splitter.end();
      dialogs.closeAll(closeReasonOf(stopSequence.cause), false);
      state.phase = "done";
      if (promptRefusal && !state.errorMessage) state.errorMessage = promptRefusal;
      const finishedAt = now();
      const cause = stopSequence.cause;
      // A run whose answer was complete is judged by its answer, not by how its process was made to exit.
      const effectiveExit = runOver && !cause && !promptRefusal && exitCode !== 0 ? 0 : exitCode;
      const verdict = classifyRun(state, { exitCode: effectiveExit, signal, cause, spawnError, budgetHit, loopHit });
      const outcome: RunOutcome = {
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
        loopHit: cause === "loop" ? loopHit : undefined,
        usageNote: usageNoteText(state.usage.turns, state.estimatedTurns, state.unknownCostTurns),
        skippedOutput:
          state.skippedLines > 0 ? { lines: state.skippedLines, sample: [...state.skippedSample] } : undefined,
        unanswered: dialogs.unanswered.length > 0 ? dialogs.unanswered : undefined,
      };
      const expiredNote =
        outcome.status === "failed" && loginAtStart ? loginExpiredNote(loginAtStart, startedAt, finishedAt) : undefined;
      spec.settle?.conclude?.(outcome, state);
      if (expiredNote)
        outcome.errorMessage = outcome.errorMessage ? `${outcome.errorMessage}\n${expiredNote}` : expiredNote;
      // The result is delivered only once nothing of the task runs any more, and its mount points are gone.
      void leftoversEnded.then(() => {
        mountPointClaim.release();
        resolve(outcome);
        spec.warm?.ended(outcome);
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
      // However the child ended (kill -9, a crash, a normal exit), what its tools left running carries its marker.
      leftoversEnded = endLeftovers(marker, killGraceMs);
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

  const steer = (text: string): SteerResult => {
    if (!rpc) return "unsupported";
    if (runOver || exited || finished || stopSequence.phase !== "idle") return "ended";
    return steerBatch.offer(text) ? "sent" : "ended";
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
