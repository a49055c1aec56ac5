/**
 * The fan-out gate's two caps: tasks dispatched per run of the main agent, and tasks in flight (running plus
 * queued, background and blocking). From the environment (`PI_SUBAGENT_MAX_TASKS_PER_TURN`,
 * `PI_SUBAGENT_MAX_TASKS_IN_FLIGHT`), else the user file's `$maxTasksPerTurn` / `$maxTasksInFlight`, else the
 * defaults 16 and 32, which a normal session never reaches; a project file's value counts only where it is lower
 * (a repository may tighten the person's caps, never lift them). Pure.
 */
export const MAX_PER_TURN_ENV = "PI_SUBAGENT_MAX_TASKS_PER_TURN";
export const MAX_IN_FLIGHT_ENV = "PI_SUBAGENT_MAX_TASKS_IN_FLIGHT";
export const MAX_PER_TURN_KEY = "$maxTasksPerTurn";
export const MAX_IN_FLIGHT_KEY = "$maxTasksInFlight";
export const DEFAULT_MAX_PER_TURN = 16;
export const DEFAULT_MAX_IN_FLIGHT = 32;

export interface FanOutLimits {
  perTurn: number;
  inFlight: number;
}

/** The caps a config file sets (already validated). */
export interface FanOutSettings {
  maxTasksPerTurn?: number;
  maxTasksInFlight?: number;
}

export const isCap = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 1;

export const CAP_RULE = "must be a whole number of at least 1";

/** Reads one config file's caps; a bad value is reported and ignored. */
export function readFanOutSetting(key: string, value: unknown, settings: FanOutSettings, problems: string[]): void {
  if (!isCap(value)) {
    problems.push(`"${key}" ${CAP_RULE}; ignored`);
    return;
  }
  if (key === MAX_PER_TURN_KEY) settings.maxTasksPerTurn = value;
  else settings.maxTasksInFlight = value;
}

export function resolveFanOutLimits(env: NodeJS.ProcessEnv, files: { user?: FanOutSettings; project?: FanOutSettings }): { limits: FanOutLimits; warnings: string[] } {
  const warnings: string[] = [];
  const fromEnv = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (isCap(value)) return value;
    warnings.push(`pi-subagent-dispatch: ${name}=${JSON.stringify(raw.slice(0, 40))} ${CAP_RULE}; ignored`);
    return undefined;
  };
  // The person's cap (their environment, their file, the default); a project's only ever lowers it.
  const lower = (own: number, project: number | undefined): number => (project !== undefined && project < own ? project : own);
  const perTurn = lower(fromEnv(MAX_PER_TURN_ENV) ?? files.user?.maxTasksPerTurn ?? DEFAULT_MAX_PER_TURN, files.project?.maxTasksPerTurn);
  const inFlight = lower(fromEnv(MAX_IN_FLIGHT_ENV) ?? files.user?.maxTasksInFlight ?? DEFAULT_MAX_IN_FLIGHT, files.project?.maxTasksInFlight);
  return { limits: { perTurn, inFlight }, warnings };
}
