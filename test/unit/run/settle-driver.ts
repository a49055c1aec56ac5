/**
 * Drives a settle check (`RunSpec.settle`) the way the runner does, for the unit tests of the checks behind it: a
 * child's run that ends with each answer in turn, `afterRun` after each, until a check lets the child close; then
 * `conclude` on the last state's outcome.
 */
import { initialRunState, type RunOutcome, type RunState } from "../../../src/run/event-reducer.ts";
import type { SettleCheck } from "../../../src/run/runner.ts";

/** A child's run that ended on its own with `text` as its final message. */
export function ended(text: string): RunState {
  return { ...initialRunState(0), finalText: text, stopReason: "stop" };
}

export function outcomeOf(state: RunState, status: RunOutcome["status"] = "succeeded"): RunOutcome {
  return {
    status,
    exitCode: 0,
    signal: null,
    output: state.finalText,
    usage: state.usage,
    startedAt: 0,
    finishedAt: 1,
    durationMs: 1,
    stderrTail: "",
  };
}

/** The prompts the check sent back (undefined: it let the child close) and the concluded outcome. */
export async function settle(
  check: SettleCheck,
  answers: string[],
): Promise<{ prompts: (string | undefined)[]; outcome: RunOutcome }> {
  const prompts: (string | undefined)[] = [];
  let state = ended(answers[0]!);
  for (const answer of answers) {
    state = ended(answer);
    const prompt = await check.afterRun(state);
    prompts.push(prompt);
    if (prompt === undefined) break;
  }
  const outcome = outcomeOf(state);
  check.conclude?.(outcome, state);
  return { prompts, outcome };
}
