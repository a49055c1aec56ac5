/**
 * The checks made on a child's answer while the child is still alive, behind the runner's settle seam
 * (`RunSpec.settle`): `verify` first (is the work done?), then the deliverable check (is the answer the work?).
 * Each run's end asks them in that order, and the first prompt sends the child back; a check that has nothing to ask
 * lets the next one ask. They conclude in the opposite order, so that what the later check adds to the output (an
 * attached file) sits next to the answer, before what the earlier adds (a failed check's output).
 *
 * The deliverable check: the final message is classified (src/run/deliverable.ts). `ok` lets the child close, with
 * no file read and no extra prompt. A pointer to a file inside the child's working folder attaches the file's text.
 * Anything else sends the still-live child back once with RESTATE_PROMPT; its next final message is then
 * `restated`, `attached <file>` or `missing`. A JSON-mode child has no seam (nothing can be sent to it): its answer
 * is classified and a file attached when it ends, never restated.
 *
 * `verify`: its check commands run (src/run/verify.ts says what a round is); a failure with rounds left sends the
 * child back with the command, how it failed and its output. Once the check passed or its rounds are used up it is
 * not run again (a later restate of the deliverable check does not re-run it). A JSON child's check is reported as
 * not run. The code that spawns a command (src/run/verify-command.ts) is loaded only when a check runs.
 */
import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { ChildCommand } from "./command-line.ts";
import {
  attachedHeading,
  classifyDeliverable,
  RESTATE_PROMPT,
  type DeliverableNote,
  type DeliverableVerdict,
} from "./deliverable.ts";
import type { RunOutcome, RunState } from "./event-reducer.ts";
import type { SettleCheck } from "./runner.ts";
import {
  checkCommandLine,
  checkPassed,
  verifyOutputHeading,
  verifyPrompt,
  type CheckRun,
  type VerifyReport,
  type VerifySetting,
} from "./verify.ts";

// The deliverable check.

/** The most of a pointed-to file that is read; the result is then cut like any output (PI_SUBAGENT_MAX_OUTPUT). */
const MAX_ATTACHED_BYTES = 1024 * 1024;

/**
 * The text of `file` when it is a regular file inside `folder` (after following every link), else undefined.
 * Read up to MAX_ATTACHED_BYTES; a longer file says it was cut.
 */
function readInsideFolder(folder: string, file: string): string | undefined {
  try {
    const root = realpathSync(folder);
    const real = realpathSync(resolve(root, file));
    const inside = relative(root, real);
    if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return undefined;
    const stats = statSync(real);
    if (!stats.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(stats.size, MAX_ATTACHED_BYTES));
    const fd = openSync(real, "r");
    let length = 0;
    try {
      length = readSync(fd, buffer, 0, buffer.length, 0);
    } finally {
      closeSync(fd);
    }
    const text = buffer.subarray(0, length).toString("utf8");
    return stats.size > MAX_ATTACHED_BYTES ? `${text}\n[… cut at ${MAX_ATTACHED_BYTES} bytes of ${stats.size}]` : text;
  } catch {
    return undefined;
  }
}

function verdictOf(state: Pick<RunState, "finalText" | "stopReason">): DeliverableVerdict {
  return classifyDeliverable({ text: state.finalText, endedOnToolCall: state.stopReason === "toolUse" });
}

export class DeliverableCheck implements SettleCheck {
  private asked = false;
  private note: DeliverableNote | undefined;
  private attached: { file: string; text: string } | undefined;

  /** `folder`: the child's working folder (its cwd or worktree); a pointed-to file must be inside it. */
  constructor(private readonly folder: string) {}

  /** The file a verdict points to, attached when it is readable inside the folder. */
  private attach(verdict: DeliverableVerdict): boolean {
    if (verdict.kind !== "pointer-to-file" || !verdict.file) return false;
    const text = readInsideFolder(this.folder, verdict.file);
    if (text === undefined) return false;
    this.attached = { file: verdict.file, text };
    this.note = `attached ${verdict.file}`;
    return true;
  }

  afterRun(state: Readonly<RunState>): Promise<string | undefined> {
    // An answer cut off (`length`) or aborted is a failed run, judged as such: no restate for it.
    if (state.stopReason !== undefined && state.stopReason !== "stop" && state.stopReason !== "toolUse")
      return Promise.resolve(undefined);
    const verdict = verdictOf(state);
    if (verdict.kind === "ok") this.note = this.asked ? "restated" : "ok";
    else if (!this.attach(verdict)) {
      if (!this.asked) {
        this.asked = true;
        return Promise.resolve(RESTATE_PROMPT);
      }
      this.note = "missing";
    }
    return Promise.resolve(undefined);
  }

  /** Adds what the check found to a finished run's outcome (a JSON child's answer is classified here). */
  conclude(outcome: RunOutcome, state: Readonly<RunState>): void {
    if (outcome.status !== "succeeded") return;
    if (this.note === undefined) {
      const verdict = verdictOf(state);
      if (verdict.kind === "ok") this.note = "ok";
      else if (!this.attach(verdict)) this.note = "missing";
    }
    if (this.note === undefined) return;
    outcome.deliverable = this.note;
    if (this.attached)
      outcome.output = `${outcome.output}\n\n${attachedHeading(this.attached.file)}\n\n${this.attached.text}`;
  }
}

/** The check for a dispatch: none when the agent's config entry or frontmatter says `deliverableCheck: false`. */
export function deliverableCheckFor(enabled: boolean | undefined, folder: string): DeliverableCheck | undefined {
  return enabled === false ? undefined : new DeliverableCheck(folder);
}

// `verify`.

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
  const run: CheckRunner = async (command) => {
    const plan = checkCommandLine(child, command, sandboxed);
    if (!plan.ok) return { command, exitCode: null, error: plan.reason, output: "" };
    const { runCheckCommand } = await import("./verify-command.ts");
    return runCheckCommand(command, plan.line, cwd, setting.timeoutMs);
  };
  return new VerifyCheck(setting, run, child.mode === "json");
}

// Both, in order.

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
