/**
 * The `verify` setting of a dispatch (pure): an agent's `verify`, `verifyRounds` and `verifyTimeout` frontmatter
 * fields, checked, and the call's `verify` added after the agent's (a call never removes or replaces it). What a
 * round is and what happens on a failure: src/run/verify.ts.
 */

/** Rounds when the agent sets none: one send-back after a first failure. */
const DEFAULT_VERIFY_ROUNDS = 2;
/** A check's time limit when the agent sets none, in seconds. */
const DEFAULT_VERIFY_TIMEOUT_SECONDS = 120;

export const VERIFY_ROUNDS_RULE = '"verifyRounds" must be a whole number of at least 1';
export const VERIFY_TIMEOUT_RULE = '"verifyTimeout" must be a number of seconds greater than 0';

/** What a dispatch checks: its commands, how many rounds, the time limit of one command. */
export interface VerifySetting {
  commands: string[];
  maxRounds: number;
  timeoutMs: number;
}

/** The fields of an agent (frontmatter) that set the check. */
export interface AgentVerifyFields {
  verify?: string;
  verifyRounds?: number;
  /** Seconds. */
  verifyTimeout?: number;
}

/** The setting of one dispatch: the agent's command, then the call's (a call only adds); none without a command. */
export function resolveVerify(agent: AgentVerifyFields, callVerify?: string): VerifySetting | undefined {
  const commands = [agent.verify, callVerify]
    .map((command) => command?.trim())
    .filter((command): command is string => command !== undefined && command !== "");
  if (commands.length === 0) return undefined;
  return {
    commands,
    maxRounds: agent.verifyRounds ?? DEFAULT_VERIFY_ROUNDS,
    timeoutMs: (agent.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT_SECONDS) * 1000,
  };
}

/** `verifyRounds` as written, or undefined when it is not a whole number of at least 1. */
export function verifyRoundsValue(raw: unknown): number | undefined {
  return typeof raw === "number" && Number.isInteger(raw) && raw >= 1 ? raw : undefined;
}

/** `verifyTimeout` seconds as written, or undefined when it is not a positive finite number. */
export function verifyTimeoutValue(raw: unknown): number | undefined {
  return typeof raw === "number" && Number.isFinite(raw) && raw > 0 ? raw : undefined;
}
