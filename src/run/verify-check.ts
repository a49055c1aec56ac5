/**
 * `verify` behind the runner's settle seam (`RunSpec.settle`): when a child's run ends on its own, its check
 * commands run (src/run/verify.ts says what a round is); a failure with rounds left sends the still-live child back
 * with the command, how it failed and its output. Once the check passed or its rounds are used up it is not run
 * again (a later restate of the deliverable check does not re-run it). A JSON child cannot be sent back: its check
 * is reported as not run.
 */
import type { RunOutcome, RunState } from "./event-reducer.ts";
import type { SettleCheck } from "./runner.ts";
import type { ChildCommand } from "./command-line.ts";
import {
  checkCommandLine,
  checkPassed,
  verifyOutputHeading,
  verifyPrompt,
  type CheckRun,
  type VerifyReport,
  type VerifySetting,
} from "./verify.ts";
import { runCheckCommand } from "./verify-command.ts";

/** Runs one command of the check (injected in tests). */
export type CheckRunner = (command: string) => Promise<CheckRun>;

export const JSON_CHILD_NOT_CHECKED = "a JSON-mode child cannot be sent back to work, so its check is not run";
/** An RPC child whose run succeeded without ending on its own (no answer was settled): nothing was checked. */
const NOTHING_CHECKED = "its run did not end on an answer the check could look at";

function withoutOutput(run: CheckRun): Omit<CheckRun, "output"> {
  const { output: _output, ...rest } = run;
  return rest;
}

export class VerifyCheck implements SettleCheck {
  private rounds = 0;
  private passed = false;
  private lastFailure: CheckRun | undefined;

  /** `jsonChild`: the child runs in JSON mode, where the runner has no settle seam (nothing can be sent to it). */
  constructor(
    private readonly setting: VerifySetting,
    private readonly run: CheckRunner,
    private readonly jsonChild = false,
  ) {}

  private get concluded(): boolean {
    return this.passed || this.rounds >= this.setting.maxRounds;
  }

  /** One round: each command in order, up to the first that fails. */
  private async round(): Promise<CheckRun | undefined> {
    for (const command of this.setting.commands) {
      let result: CheckRun;
      try {
        result = await this.run(command);
      } catch (error) {
        result = { command, exitCode: null, error: (error as Error).message, output: "" };
      }
      if (!checkPassed(result)) return result;
    }
    return undefined;
  }

  async afterRun(state: Readonly<RunState>): Promise<string | undefined> {
    // An answer cut off or aborted is a failed run, judged as such: nothing to check.
    if (state.stopReason !== undefined && state.stopReason !== "stop" && state.stopReason !== "toolUse")
      return undefined;
    if (this.concluded) return undefined;
    this.rounds += 1;
    const failure = await this.round();
    if (failure === undefined) {
      this.passed = true;
      this.lastFailure = undefined;
      return undefined;
    }
    this.lastFailure = failure;
    if (this.rounds >= this.setting.maxRounds) return undefined;
    return verifyPrompt(failure, this.setting.timeoutMs, this.rounds, this.setting.maxRounds);
  }

  /** What the check found, for the record; undefined when it had nothing to say (the run failed before a round). */
  report(outcome: Pick<RunOutcome, "status">): VerifyReport | undefined {
    const base = {
      commands: [...this.setting.commands],
      maxRounds: this.setting.maxRounds,
      timeoutMs: this.setting.timeoutMs,
    };
    if (this.rounds === 0)
      return outcome.status === "succeeded"
        ? { ...base, passed: false, rounds: 0, notRun: this.jsonChild ? JSON_CHILD_NOT_CHECKED : NOTHING_CHECKED }
        : undefined;
    return {
      ...base,
      passed: this.passed,
      rounds: this.rounds,
      ...(this.lastFailure && !this.passed ? { failure: withoutOutput(this.lastFailure) } : {}),
    };
  }

  /** Adds the report to the outcome, and a failed check's last output after the answer. */
  conclude(outcome: RunOutcome): void {
    const report = this.report(outcome);
    if (!report) return;
    outcome.verify = report;
    const failure = report.failure && this.lastFailure;
    if (failure)
      outcome.output = `${outcome.output}\n\n${verifyOutputHeading(failure, this.setting.timeoutMs)}\n\n${failure.output || "(no output)"}`;
  }
}

/**
 * The check of a dispatch, or none without a command. Each command runs as the child does: in its working folder
 * `cwd`, with its environment, inside its sandbox (`sandboxed`: the child has one; never run outside it).
 */
export function verifyCheckFor(
  setting: VerifySetting | undefined,
  child: ChildCommand,
  cwd: string,
  sandboxed: boolean,
): VerifyCheck | undefined {
  if (!setting) return undefined;
  const run: CheckRunner = (command) => {
    const plan = checkCommandLine(child, command, sandboxed);
    if (!plan.ok) return Promise.resolve({ command, exitCode: null, error: plan.reason, output: "" });
    return runCheckCommand(command, plan.line, cwd, setting.timeoutMs);
  };
  return new VerifyCheck(setting, run, child.mode === "json");
}
