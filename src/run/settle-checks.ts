/**
 * The checks made on a child's answer, in one `SettleCheck`: `verify` first (is the work done?), then the
 * deliverable check (is the answer the work?). Each run's end asks them in that order, and the first prompt sends
 * the child back; a check that has nothing to ask lets the next one ask. They conclude in the opposite order, so
 * that what the later check adds to the output (an attached file) sits next to the answer, before what the
 * earlier adds (a failed check's output).
 */
import type { RunOutcome, RunState } from "./event-reducer.ts";
import type { SettleCheck } from "./runner.ts";
import type { ChildCommand } from "./command-line.ts";
import type { VerifySetting } from "./verify.ts";
import { deliverableCheckFor } from "./deliverable-check.ts";
import { verifyCheckFor } from "./verify-check.ts";

export function composeSettleChecks(...checks: readonly (SettleCheck | undefined)[]): SettleCheck | undefined {
  const present = checks.filter((check): check is SettleCheck => check !== undefined);
  if (present.length <= 1) return present[0];
  return {
    async afterRun(state: Readonly<RunState>): Promise<string | undefined> {
      for (const check of present) {
        const prompt = await check.afterRun(state);
        if (prompt !== undefined) return prompt;
      }
      return undefined;
    },
    conclude(outcome: RunOutcome, state: Readonly<RunState>): void {
      for (const check of [...present].reverse()) check.conclude?.(outcome, state);
    },
  };
}

/** What a dispatch's checks are made from: a prepared run's fields (src/tool/prepare-dispatch.ts). */
export interface SettleInputs {
  command: ChildCommand;
  /** The child's working folder (its worktree when isolated). */
  cwd: string;
  deliverableCheck?: boolean;
  verify?: VerifySetting;
  /** The child's sandbox: any level but `off` makes its check run in the same sandbox, or not at all. */
  sandbox?: { level: string };
}

/** The settle check of one dispatch: its `verify`, then its deliverable check; none when both are off. */
export function settleChecksFor(inputs: SettleInputs): SettleCheck | undefined {
  return composeSettleChecks(
    verifyCheckFor(inputs.verify, inputs.command, inputs.cwd, (inputs.sandbox?.level ?? "off") !== "off"),
    deliverableCheckFor(inputs.deliverableCheck, inputs.cwd),
  );
}
