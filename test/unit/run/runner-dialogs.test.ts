/**
 * The runner and a child's extension UI, driven by a fake RPC child that asks what pi's permission-gate example
 * asks (a `select` before `rm -rf`) and writes into its answer what it got back. Covers: the dialog reaches the
 * sink and the person's answer reaches the child; where nobody can answer it is cancelled and the result says
 * so; fire-and-forget requests never reach the sink; a child waiting for the person outlives its activity
 * timeout; a stop closes the question and answers the child cancelled.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ChildCommand } from "../../../src/run/command-line.ts";
import { startRun, type RunSpec } from "../../../src/run/runner.ts";
import type {
  ChildDialog,
  ChildNotice,
  DialogAnswer,
  CloseReason,
  DialogRoute,
} from "../../../src/dialogs/child-dialogs.ts";
import { ASKING_CHILD } from "../../harness/asking-child.ts";
import { MARKER_VAR } from "../../harness/pi-env.ts";
import { expectNoProcessesLeftAfterEach } from "../../harness/processes.ts";

const markers = expectNoProcessesLeftAfterEach();

function askingChild(): ChildCommand {
  const marker = randomUUID();
  markers.push(marker);
  return {
    command: process.execPath,
    args: ["-e", ASKING_CHILD],
    env: { PATH: process.env.PATH, [MARKER_VAR]: marker },
    mode: "rpc",
    prompt: "Task: clean up",
  };
}

function run(extra: Partial<RunSpec> = {}) {
  return startRun({
    command: askingChild(),
    cwd: process.cwd(),
    activityTimeoutMs: 0,
    hardTimeoutMs: 0,
    graceMs: 500,
    stopGraceMs: 1000,
    ...extra,
  });
}

const until = async (predicate: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** A sink that records what reached it and lets the test answer. */
function personSink() {
  const asked: Array<{ dialog: ChildDialog; reply: (answer: DialogAnswer) => void; closed?: CloseReason }> = [];
  const notices: ChildNotice[] = [];
  const route: DialogRoute = {
    kind: "person",
    sink: {
      ask: (dialog, reply) => {
        const entry: (typeof asked)[number] = { dialog, reply };
        asked.push(entry);
        return { close: (why) => (entry.closed = why) };
      },
      notice: (notice) => notices.push(notice),
    },
  };
  return { route, asked, notices };
}

describe("a child's dialogs", () => {
  it("reach the person's sink with what pi's dialog shows, and the answer reaches the child", async () => {
    const person = personSink();
    const handle = run({ dialogs: person.route });
    await until(() => person.asked.length === 1);
    expect(person.asked[0]?.dialog).toEqual({
      id: "q1",
      method: "select",
      title: "⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?",
      options: ["Yes", "No"],
    });
    person.asked[0]?.reply({ value: "Yes" });
    const outcome = await handle.done;
    expect(outcome.status).toBe("succeeded");
    expect(outcome.output).toBe('got q1 {"value":"Yes"}');
    expect(outcome.unanswered).toBeUndefined();
    // Only the notify is shown; the title, status and editor text never leave the runner.
    expect(person.notices).toEqual([{ message: "checking the command", level: "info" }]);
  });

  it("where nobody can answer, are cancelled at once and named in the result with the reason", async () => {
    const outcome = await run({ dialogs: { kind: "nobody", reason: "print mode" } }).done;
    expect(outcome.output).toBe('got q1 {"cancelled":true}');
    expect(outcome.unanswered).toEqual([
      'asked "⚠️ Dangerous command: rm -rf build Allow?": no one to answer (print mode)',
    ]);
  });

  it("a child waiting for the person longer than its activity timeout is not stopped for it", async () => {
    const person = personSink();
    const handle = run({ dialogs: person.route, activityTimeoutMs: 400 });
    await until(() => person.asked.length === 1);
    const askedAt = Date.now();
    // The person takes their time: four activity timeouts pass without a line from the child.
    await until(() => Date.now() - askedAt > 1600);
    expect(handle.over).toBe(false);
    person.asked[0]?.reply({ value: "No" });
    const outcome = await handle.done;
    expect(outcome.status).toBe("succeeded");
    expect(outcome.output).toBe('got q1 {"value":"No"}');
  });

  it("a stop closes the open question with its cause and answers the child cancelled, so its turn ends", async () => {
    const person = personSink();
    const handle = run({ dialogs: person.route });
    await until(() => person.asked.length === 1);
    expect(handle.stop("aborted")).toBe(true);
    expect(person.asked[0]?.closed).toBe("cancelled");
    const outcome = await handle.done;
    expect(outcome.status).toBe("cancelled");
    expect(outcome.partial?.text).toBe('got q1 {"cancelled":true}');
    // A late answer from the screen is dropped: the child already has its answer.
    person.asked[0]?.reply({ value: "Yes" });
  });

  it("a timeout closes the question as timed out", async () => {
    const person = personSink();
    // The hard timeout counts from the spawn: long enough that a loaded machine's slow start still asks first.
    const handle = run({ dialogs: person.route, hardTimeoutMs: 2500 });
    await until(() => person.asked.length === 1);
    const outcome = await handle.done;
    expect(outcome.status).toBe("timed out");
    expect(person.asked[0]?.closed).toBe("timed out");
  });
});
