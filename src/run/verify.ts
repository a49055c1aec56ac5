/**
 * `verify` (pure): the check commands run when a child's run ends on its own (src/run/settle-checks.ts runs them;
 * src/budget/verify-setting.ts resolves them from the agent and the call): the prompt that sends a failing child
 * back, the bounded output, the one line the result shows, and the command line that runs a check in the child's
 * own sandbox.
 *
 * A round is one run of the commands, in order (the agent's first, then the call's), stopping at the first that
 * fails. A failed round with rounds left sends the still-live child back (`verifyPrompt`); after `verifyRounds`
 * failed rounds the result is delivered with the last failure's output attached and a line saying it failed.
 */
import type { ChildCommand } from "./command-line.ts";

export type { VerifySetting } from "../budget/verify-setting.ts";

/** The most of a check's output (stdout and stderr together, their end) the child and the result get. */
export const VERIFY_OUTPUT_CHARS = 4096;

/** One run of one command. */
export interface CheckRun {
  command: string;
  /** null when it was ended by a signal or could not start. */
  exitCode: number | null;
  signal?: string;
  /** It ran past the time limit and was ended. */
  timedOut?: boolean;
  /** It could not be started (or was refused), and why. */
  error?: string;
  /** The end of its stdout and stderr together, at most VERIFY_OUTPUT_CHARS. */
  output: string;
}

/** What the record keeps of the check (`verify` of a task record). */
export interface VerifyReport {
  commands: string[];
  passed: boolean;
  /** Rounds run (0: not run at all, see `notRun`). */
  rounds: number;
  maxRounds: number;
  /** A command's time limit. */
  timeoutMs: number;
  /** The command that failed last in a failed check, and how (its output follows the answer, not kept here). */
  failure?: Omit<CheckRun, "output">;
  /** Why the check did not run (a JSON child's run cannot be checked while it is alive). */
  notRun?: string;
}

/** Whether `run` passed: exit 0, not timed out, started. */
export function checkPassed(run: Pick<CheckRun, "exitCode" | "timedOut" | "error">): boolean {
  return run.exitCode === 0 && !run.timedOut && run.error === undefined;
}

/** The end of `text`, at most `max` characters, saying how much was cut before it. */
export function boundedOutput(text: string, max: number = VERIFY_OUTPUT_CHARS): string {
  const trimmed = text.trimEnd();
  if (trimmed.length <= max) return trimmed;
  return `[… ${trimmed.length - max} earlier characters cut]\n${trimmed.slice(-max)}`;
}

/** How a failing command failed, in a few words: `exited 1`, `timed out after 120 s`. */
function failureText(run: Omit<CheckRun, "output">, timeoutMs: number): string {
  if (run.error !== undefined) return `could not run: ${run.error}`;
  if (run.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)} s`;
  if (run.exitCode === null) return `was ended by ${run.signal ?? "a signal"}`;
  return `exited ${run.exitCode}`;
}

/** The prompt that sends a child whose check failed back to work. */
export function verifyPrompt(run: CheckRun, timeoutMs: number, round: number, maxRounds: number): string {
  const left = maxRounds - round;
  return [
    `The check of your work failed (round ${round} of ${maxRounds}): the command \`${run.command}\` ${failureText(run, timeoutMs)}, run in your working folder.`,
    "Its output:",
    "```",
    run.output || "(no output)",
    "```",
    `Fix the problem, then answer again with your complete final answer. The check runs again when you end (${left} more ${left === 1 ? "round" : "rounds"}).`,
  ].join("\n");
}

/** The heading put between the answer and the output of the check that failed last. */
export function verifyOutputHeading(run: CheckRun, timeoutMs: number): string {
  return `--- verify failed: \`${run.command}\` ${failureText(run, timeoutMs)}; its output ---`;
}

/** The one line the envelope, the tool result, the card and /subagent-result show (after `Verify: `). */
export function verifyNoteText(report: VerifyReport): string {
  if (report.notRun !== undefined) return `not run: ${report.notRun}`;
  if (report.passed) return `passed (round ${report.rounds} of ${report.maxRounds})`;
  const how = report.failure ? `: ${report.failure.command} ${failureText(report.failure, report.timeoutMs)}` : "";
  // A run that ended before its rounds were used up (stopped, cancelled) is not said to have used them.
  if (report.rounds < report.maxRounds) return `failed (round ${report.rounds} of ${report.maxRounds})${how}`;
  return `failed after ${report.rounds} ${report.rounds === 1 ? "round" : "rounds"}${how}`;
}

/** How one check command is started: its program, arguments, environment and what a sandbox needs at the spawn. */
export interface CheckCommandLine {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  handIn?: ChildCommand["handIn"];
  mountPoints?: ChildCommand["mountPoints"];
}

export type CheckCommandPlan = { ok: true; line: CheckCommandLine } | { ok: false; reason: string };

export const SANDBOX_NOT_REUSABLE =
  "the child runs in a sandbox whose wrapper could not be reused, and a check never runs outside its child's sandbox";

/** The refusal of a dispatch whose check could not run where its child runs. */
export function verifyRefusedMessage(agent: string, reason: string): string {
  return `Cannot start ${agent}: its verify check cannot run (${reason}). Nothing was started.`;
}

/**
 * `sh -c <command>` as the child runs: with its environment, and inside its sandbox when it has one (bubblewrap
 * with the child's own arguments, the same files handed in and the same mount points). A child that is sandboxed
 * (`sandboxed`) but whose command carries no reusable wrapper is refused, never run unsandboxed.
 */
export function checkCommandLine(child: ChildCommand, command: string, sandboxed: boolean): CheckCommandPlan {
  if (child.sandboxArgs === undefined) {
    if (sandboxed) return { ok: false, reason: SANDBOX_NOT_REUSABLE };
    return { ok: true, line: { command: "sh", args: ["-c", command], env: child.env } };
  }
  return {
    ok: true,
    line: {
      command: child.command,
      args: [...child.sandboxArgs, "--", "sh", "-c", command],
      env: child.env,
      ...(child.handIn ? { handIn: child.handIn } : {}),
      ...(child.mountPoints ? { mountPoints: child.mountPoints } : {}),
    },
  };
}
