/**
 * The loop guard's one setting, `loopGuard` (pure): how many identical tool calls in a row get a child a nudge,
 * or off. It layers like a budget (src/config/resolve.ts): the person's value, a project only makes it stricter.
 */

/** The default: eight identical calls in a row (why: src/run/loop-guard.ts). */
export const DEFAULT_LOOP_REPEATS = 8;
/** The smallest value: fewer would trip on a child that honestly checks a result twice. */
const MIN_LOOP_REPEATS = 3;
/** How a parsed agent or config entry holds `loopGuard: false` / `0`: no limit, which no project value is above. */
export const LOOP_GUARD_OFF = Number.POSITIVE_INFINITY;
/** The session-wide default for agents that set none, like the budgets' variables. */
const LOOP_GUARD_ENV = "PI_SUBAGENT_LOOP_GUARD";

/** What the runner is given: a number of calls, or off. */
export type LoopGuardSetting = number | "off";

/** The rule a `loopGuard` value breaks, for the warnings. */
export const LOOP_GUARD_RULE = `"loopGuard" must be false, 0, or a whole number of at least ${MIN_LOOP_REPEATS}`;

/**
 * The value as parsed agents and config entries hold it (a number of calls, LOOP_GUARD_OFF for `false`, 0,
 * `"off"`), or undefined when it is not valid (`true`, 1, 2, -1, 2.5, other text).
 */
export function loopGuardValue(value: unknown): number | undefined {
  if (value === false || value === 0 || value === "off" || value === "false" || value === "0") return LOOP_GUARD_OFF;
  const number = typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < MIN_LOOP_REPEATS) return undefined;
  return number;
}

/** A resolved value as the runner takes it. */
export function loopGuardSetting(value: number): LoopGuardSetting {
  return value === LOOP_GUARD_OFF ? "off" : value;
}

/** The session-wide default from PI_SUBAGENT_LOOP_GUARD, with a warning for a value that is not valid. */
export function readEnvLoopGuard(env: NodeJS.ProcessEnv = process.env): { value: number; warning?: string } {
  const raw = env[LOOP_GUARD_ENV];
  if (raw === undefined || raw.trim() === "") return { value: DEFAULT_LOOP_REPEATS };
  const value = loopGuardValue(raw);
  if (value !== undefined) return { value };
  const rule = LOOP_GUARD_RULE.replace('"loopGuard" must be', "must be");
  return {
    value: DEFAULT_LOOP_REPEATS,
    warning: `pi-subagent-dispatch: ${LOOP_GUARD_ENV}=${JSON.stringify(raw.slice(0, 40))} ${rule}; ignored`,
  };
}
