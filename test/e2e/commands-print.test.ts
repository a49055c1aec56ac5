/**
 * The task commands outside the TUI, with the real pi 0.73.1: after a synchronous delegation in `pi -p`, a new
 * `pi -p "/subagent-result <id>"` prints the record and the whole output to the real stdout (pi sends an
 * extension's console output to stderr in print mode), JSON mode prints one JSON line, RPC sends it as a
 * notice; unknown ids fail with status 1; cancel, cancel-all and watch say what they can do there. None of
 * them calls the model, throws or hangs.
 *
 * @module-tag contract
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, parseJsonLines, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { PiRpc } from "../harness/rpc.ts";

const isChild = isWorkerRequest;
/** A Markdown answer with a `---` rule of its own, so a script splitting at the first `---` line is tested. */
const CHILD_OUTPUT =
  "# Findings\n\nThe parser drops the last line.\n\n---\n\nFix: flush the buffer at the end.\nPRINT-FINAL-LINE";

const suite = useE2eSuite();

function pi(args: string[]) {
  return runPi(["-e", EXTENSION_ENTRY, ...args], { env: suite.env.env, cwd: suite.env.workDir, timeoutMs: 90_000 });
}

/** A synchronous delegation in print mode; returns the task id printed with the result. */
async function delegate(): Promise<string> {
  const task = `Find the bug. ${fakeDirective({ text: CHILD_OUTPUT })}`;
  const run = await pi([
    "-p",
    `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] })}`,
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("PRINT-FINAL-LINE");
  const id = /\[subagent session: ([0-9a-f-]{36})\]/.exec(run.stdout)?.[1];
  expect(id).toBeDefined();
  return id!;
}

describe("task commands outside the TUI", () => {
  it("prints a synchronous run's record and whole output to stdout from a new pi process", async () => {
    suite.newEnv();
    const id = await delegate();
    const requestsBefore = suite.fake.requests.length;

    const shown = await pi(["-p", `/subagent-result ${id.slice(0, 13)}`]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toBe("");
    const split = shown.stdout.indexOf("\n---\n");
    const metadata = shown.stdout.slice(0, split).split("\n");
    expect(metadata.slice(0, 3)).toEqual([`Task id: ${id}`, "Agent: worker", "Status: succeeded"]);
    expect(metadata).toContain("Mode: synchronous");
    expect(metadata).toContain(`Session file: ${suite.env.agentDir}/subagent-sessions/${id}/session.jsonl`);
    expect(shown.stdout.slice(split + "\n---\n".length)).toBe(`${CHILD_OUTPUT}\n`);

    const json = await pi(["--mode", "json", "-p", `/subagent-result ${id}`]);
    expect(json.code, json.stderr).toBe(0);
    const line = parseJsonLines(json.stdout).find((event) => event.type === "subagent_result");
    expect(line).toMatchObject({
      taskId: id,
      agent: "worker",
      status: "succeeded",
      mode: "sync",
      output: CHILD_OUTPUT,
    });

    // No command reached the model.
    expect(suite.fake.requests.length).toBe(requestsBefore);
    expect(suite.fake.requests.filter(isChild)).toHaveLength(1);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("fails with status 1 and a notice on stderr for an unknown or too short id, and lists recent tasks without one", async () => {
    suite.newEnv();
    const id = await delegate();

    // pi -p takes several messages in one start and runs them in order: both failures in one process.
    const failures = await pi(["-p", "/subagent-result ffff0000", "/subagent-result 01"]);
    expect(failures.code).toBe(1);
    expect(failures.stdout).toBe("");
    expect(failures.stderr.trim().split("\n")).toEqual([
      "No task record for: ffff0000",
      'Task id "01" is too short: type at least 4 characters of the taskId.',
    ]);

    const list = await pi(["-p", "/subagent-result"]);
    expect(list.code).toBe(0);
    expect(list.stderr.trim()).toBe(
      "Usage: /subagent-result <taskId> (the short id the widget shows, or any unique start or end of 4+ characters, is enough)",
    );
    expect(list.stdout.split("\n")).toHaveLength(2);
    expect(list.stdout.startsWith(`${id}  worker  succeeded  Find the bug. @fake`)).toBe(true);
  });

  it("answers /subagent-cancel, /subagent-cancel-all, /subagent-message and /subagent-watch with one line saying what they can do", async () => {
    suite.newEnv({ noWorker: true });
    const commands = [
      [
        "/subagent-cancel 0191abcd",
        "/subagent-cancel stops background subagent tasks, which exist only in the interactive TUI; in print mode",
      ],
      [
        "/subagent-cancel-all",
        "/subagent-cancel-all stops background subagent tasks, which exist only in the interactive TUI; in print mode",
      ],
      [
        "/subagent-watch",
        "/subagent-watch is a live view of a background task and needs the interactive TUI; in print mode",
      ],
      [
        "/subagent-message 0191abcd hello",
        "/subagent-message sends a message to a background subagent task, which exist only in the interactive TUI; in print mode",
      ],
    ] as const;
    // One pi -p start runs the four commands in order, each answering on one line of its own.
    const run = await pi(["-p", ...commands.map(([command]) => command)]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(commands.length);
    commands.forEach(([, expected], index) => expect(lines[index]).toContain(expected));
    expect(suite.fake.requests).toEqual([]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("sends the result to an RPC client as a notice", async () => {
    suite.newEnv();
    const id = await delegate();
    const rpc = PiRpc.start(["-e", EXTENSION_ENTRY], { env: suite.env.env, cwd: suite.env.workDir });
    try {
      rpc.send({ id: "r1", type: "prompt", message: `/subagent-result ${id}` });
      const notice = (await rpc.waitForEvent(
        (e) => e.type === "extension_ui_request" && e.method === "notify",
        60_000,
        "the result notice",
      )) as { message: string };
      expect(notice.message.startsWith(`Task id: ${id}\n`)).toBe(true);
      expect(notice.message.endsWith(`\n---\n${CHILD_OUTPUT}\n`)).toBe(true);
      rpc.send({ id: "c1", type: "prompt", message: "/subagent-cancel-all" });
      const cancel = (await rpc.waitForEvent(
        (e) =>
          e.type === "extension_ui_request" &&
          e.method === "notify" &&
          String(e.message).startsWith("/subagent-cancel-all"),
        60_000,
        "the cancel-all notice",
      )) as { message: string };
      expect(cancel.message).toContain(
        "in rpc mode each delegation runs synchronously inside its subagent tool call (abort the call to stop it)",
      );
    } finally {
      await rpc.stop();
    }
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
