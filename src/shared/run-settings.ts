/**
 * What every run starts from: the limits read from the environment, a new task id, and the pi a child runs (the parent's own, else one found on PATH).
 */
import { v7 } from "uuid";
import { accessSync, constants, statSync, existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Limits read from the environment (documented in ADVANCED.md, "Environment variables"). */
export const ACTIVITY_TIMEOUT_ENV = "PI_SUBAGENT_ACTIVITY_TIMEOUT_MS";
export const HARD_TIMEOUT_ENV = "PI_SUBAGENT_HARD_TIMEOUT_MS";
export const MAX_CONCURRENT_ENV = "PI_SUBAGENT_MAX_CONCURRENT";
export const KILL_GRACE_ENV = "PI_SUBAGENT_KILL_GRACE_MS";

const DEFAULT_ACTIVITY_TIMEOUT_MS = 600_000;
const DEFAULT_HARD_TIMEOUT_MS = 0;
const DEFAULT_MAX_CONCURRENT = 8;
const DEFAULT_KILL_GRACE_MS = 5000;

/**
 * The quiet time allowed to a child that has written nothing yet: pi's own start (1–3 s, far longer on a loaded
 * machine) is not a hang, so a short activity timeout counts from the child's first output. A child that never
 * writes is still stopped, after the longer of its activity timeout and this.
 */
const START_ALLOWANCE_MS = 60_000;

export function startAllowanceMs(activityTimeoutMs: number): number {
  return Math.max(activityTimeoutMs, START_ALLOWANCE_MS);
}

export interface RunSettings {
  /** <= 0 disables the activity timeout. */
  activityTimeoutMs: number;
  /** <= 0 disables the hard timeout. */
  hardTimeoutMs: number;
  maxConcurrent: number;
  killGraceMs: number;
}

function integerOr(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  return Number.isFinite(value) ? Math.trunc(value) : fallback;
}

/**
 * The longest delay Node's timers honour (2^31 - 1 ms, about 24.8 days). A longer one is not an error to Node:
 * it silently fires after 1 ms, which would end every run at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** A timeout longer than a timer can wait: no timeout at all (nobody means "end it after 25 days"). */
function timeoutOrNoLimit(value: number): number {
  return value > MAX_TIMER_MS ? 0 : value;
}

export function readRunSettings(env: NodeJS.ProcessEnv = process.env): RunSettings {
  const maxConcurrent = integerOr(env[MAX_CONCURRENT_ENV], DEFAULT_MAX_CONCURRENT);
  const killGraceMs = integerOr(env[KILL_GRACE_ENV], DEFAULT_KILL_GRACE_MS);
  return {
    activityTimeoutMs: timeoutOrNoLimit(integerOr(env[ACTIVITY_TIMEOUT_ENV], DEFAULT_ACTIVITY_TIMEOUT_MS)),
    hardTimeoutMs: timeoutOrNoLimit(integerOr(env[HARD_TIMEOUT_ENV], DEFAULT_HARD_TIMEOUT_MS)),
    maxConcurrent: maxConcurrent >= 1 ? maxConcurrent : DEFAULT_MAX_CONCURRENT,
    // A grace longer than a timer can wait is capped: the child still gets SIGKILL, just very late.
    killGraceMs: killGraceMs >= 0 ? Math.min(killGraceMs, MAX_TIMER_MS) : DEFAULT_KILL_GRACE_MS,
  };
}

/** What readRunSettings changed about values too large for a timer, one message per variable (shown once). */
export function runSettingsWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  for (const name of [ACTIVITY_TIMEOUT_ENV, HARD_TIMEOUT_ENV]) {
    if (integerOr(env[name], 0) > MAX_TIMER_MS) {
      warnings.push(
        `pi-subagent-dispatch: ${name}=${env[name]?.trim()} is longer than a timer can wait (${MAX_TIMER_MS} ms); treated as no limit`,
      );
    }
  }
  if (integerOr(env[KILL_GRACE_ENV], 0) > MAX_TIMER_MS) {
    warnings.push(
      `pi-subagent-dispatch: ${KILL_GRACE_ENV}=${env[KILL_GRACE_ENV]?.trim()} is longer than a timer can wait; capped at ${MAX_TIMER_MS} ms`,
    );
  }
  return warnings;
}

/** Why a run ended, when it was ended from outside (absent: the child exited by itself). */
/** `loop`: the loop guard stopped a child that kept repeating the same tool calls (src/run/loop-guard.ts). */
export type StopCause = "activity_timeout" | "hard_timeout" | "aborted" | "killed_on_shutdown" | "budget" | "loop";

/*
 * A new task id: a UUID v7 from the `uuid` library, time-ordered and monotonic within the process (ids made in one
 * millisecond still sort in the order they were made), so task folders and records sort by dispatch time.
 */
export function newTaskId(): string {
  return v7();
}

/* The first executable regular file named `name` in the folders of a PATH value, as a shell would find it. */
function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function findOnPath(name: string, pathEnv: string): string | undefined {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/*
 * Which pi the child runs: the same node and pi entry as the parent (`process.execPath` + `process.argv[1]`),
 * so a child never picks up a different pi version; a `pi` on PATH only when the entry is unknown.
 */
export type ExecutableLookup = { ok: true; pi: PiExecutable } | { ok: false; message: string };

export function findPiExecutable(
  argv: readonly string[] = process.argv,
  execPath: string = process.execPath,
  pathEnv: string = process.env.PATH ?? "",
): ExecutableLookup {
  const entry = argv[1];
  if (entry) {
    if (!existsSync(execPath))
      return { ok: false, message: `Cannot start the subagent: the node executable ${execPath} does not exist.` };
    if (!existsSync(entry))
      return { ok: false, message: `Cannot start the subagent: the pi entry script ${entry} does not exist.` };
    return { ok: true, pi: { command: execPath, prefixArgs: [entry] } };
  }
  const onPath = findOnPath("pi", pathEnv);
  if (onPath) return { ok: true, pi: { command: onPath, prefixArgs: [] } };
  return {
    ok: false,
    message:
      "Cannot start the subagent: no pi executable was found (pi's entry script is unknown and no `pi` is on PATH).",
  };
}

/** How a child pi is started. */
export interface PiExecutable {
  /** The program to run: node (`process.execPath`) or a `pi` found on PATH. */
  command: string;
  /** Arguments before pi's own: the pi entry script when `command` is node. */
  prefixArgs: string[];
}
