/** Limits read from the environment (documented in ADVANCED.md, "Environment variables"). */
export const ACTIVITY_TIMEOUT_ENV = "PI_SUBAGENT_ACTIVITY_TIMEOUT_MS";
export const HARD_TIMEOUT_ENV = "PI_SUBAGENT_HARD_TIMEOUT_MS";
export const MAX_CONCURRENT_ENV = "PI_SUBAGENT_MAX_CONCURRENT";
export const KILL_GRACE_ENV = "PI_SUBAGENT_KILL_GRACE_MS";

export const DEFAULT_ACTIVITY_TIMEOUT_MS = 600_000;
export const DEFAULT_HARD_TIMEOUT_MS = 0;
export const DEFAULT_MAX_CONCURRENT = 8;
export const DEFAULT_KILL_GRACE_MS = 5000;

/**
 * The quiet time allowed to a child that has written nothing yet: pi's own start (1–3 s, far longer on a loaded
 * machine) is not a hang, so a short activity timeout counts from the child's first output. A child that never
 * writes is still stopped, after the longer of its activity timeout and this.
 */
export const START_ALLOWANCE_MS = 60_000;

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
      warnings.push(`pi-subagent-dispatch: ${name}=${env[name]?.trim()} is longer than a timer can wait (${MAX_TIMER_MS} ms); treated as no limit`);
    }
  }
  if (integerOr(env[KILL_GRACE_ENV], 0) > MAX_TIMER_MS) {
    warnings.push(`pi-subagent-dispatch: ${KILL_GRACE_ENV}=${env[KILL_GRACE_ENV]?.trim()} is longer than a timer can wait; capped at ${MAX_TIMER_MS} ms`);
  }
  return warnings;
}

/** Why a run ended, when it was ended from outside (absent: the child exited by itself). */
export type StopCause = "activity_timeout" | "hard_timeout" | "aborted" | "killed_on_shutdown" | "budget";
