/** Limits read from the environment (documented in ADVANCED.md, "Environment variables"). */
export const ACTIVITY_TIMEOUT_ENV = "PI_SUBAGENT_ACTIVITY_TIMEOUT_MS";
export const HARD_TIMEOUT_ENV = "PI_SUBAGENT_HARD_TIMEOUT_MS";
export const MAX_CONCURRENT_ENV = "PI_SUBAGENT_MAX_CONCURRENT";
export const KILL_GRACE_ENV = "PI_SUBAGENT_KILL_GRACE_MS";

export const DEFAULT_ACTIVITY_TIMEOUT_MS = 600_000;
export const DEFAULT_HARD_TIMEOUT_MS = 0;
export const DEFAULT_MAX_CONCURRENT = 8;
export const DEFAULT_KILL_GRACE_MS = 5000;

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

export function readRunSettings(env: NodeJS.ProcessEnv = process.env): RunSettings {
  const maxConcurrent = integerOr(env[MAX_CONCURRENT_ENV], DEFAULT_MAX_CONCURRENT);
  const killGraceMs = integerOr(env[KILL_GRACE_ENV], DEFAULT_KILL_GRACE_MS);
  return {
    activityTimeoutMs: integerOr(env[ACTIVITY_TIMEOUT_ENV], DEFAULT_ACTIVITY_TIMEOUT_MS),
    hardTimeoutMs: integerOr(env[HARD_TIMEOUT_ENV], DEFAULT_HARD_TIMEOUT_MS),
    maxConcurrent: maxConcurrent >= 1 ? maxConcurrent : DEFAULT_MAX_CONCURRENT,
    killGraceMs: killGraceMs >= 0 ? killGraceMs : DEFAULT_KILL_GRACE_MS,
  };
}
