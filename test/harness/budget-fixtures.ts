/**
 * Shared fixtures of the budget, ledger and fan-out end-to-end tests (print mode and TUI): a child that loops
 * forever, and three delegations with known usage and their known sums.
 */
import { fakeDirective, type FakeAction } from "./fake-model.ts";

/**
 * A child that never stops on its own: every answer says which step it is on and calls a tool. The first
 * step's tool takes 3 s (long enough for the TUI to show `turn 1/N`), every later one 20 s, so a budget stop
 * after step 1 always finds a tool running and must end it.
 */
export function loopingTask(usage?: { input: number; output: number }, extra: Partial<FakeAction> = {}): string {
  const steps: FakeAction[] = Array.from({ length: 12 }, (_, index) => ({
    text: `LOOP-STEP-${index + 1}`,
    toolCalls: [{ name: "bash", arguments: { command: index === 0 ? "sleep 3" : "sleep 20" } }],
    ...(usage ? { usage } : {}),
    ...extra,
  }));
  return `Loop forever. ${fakeDirective(steps)}`;
}

/** The fake model's prices are $1 per million input tokens and $2 per million output tokens. */
const KNOWN_TASKS = [
  { text: "LEDGER-ONE", usage: { input: 10000, output: 1000 } },
  { text: "LEDGER-TWO", usage: { input: 20000, output: 2000 } },
  { text: "LEDGER-THREE", usage: { input: 30000, output: 3000 } },
];
/** 60000 input + 6000 output tokens; $0.06 + $0.012. */
export const KNOWN_TOTAL_LINE =
  "Total: 3 tasks · 3 turns · input 60000 · output 6000 · cache read 0 · cache write 0 · cost $0.0720";

/** A parent prompt whose first model call delegates the three known tasks to `worker` at once. */
export function delegateKnownTasks(): string {
  const action: FakeAction = {
    toolCalls: KNOWN_TASKS.map((task) => ({
      name: "subagent",
      arguments: { agent: "worker", task: `Report. ${fakeDirective(task)}` },
    })),
  };
  return `Please delegate three tasks. ${fakeDirective([action])}`;
}
