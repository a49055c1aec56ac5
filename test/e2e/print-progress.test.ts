/**
 * Print mode tells the terminal what it waits for, with the real pi (both pis) and the fake model: a blocking
 * dispatch writes on stderr a line when the child starts (agent, task id), a progress line while it works (its
 * tool call), and a line when it ends, and stdout holds exactly the main agent's answer. In JSON mode every
 * stdout line is still an event of pi's (the lines are on stderr only), and PI_SUBAGENT_PROGRESS=0 silences them.
 *
 * @module-tag contract
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();

/** The main agent dispatches the worker with `childActions`, then answers PARENT-FINAL. */
function delegating(childActions: FakeAction[]): string {
  const call: FakeAction = {
    toolCalls: [
      { name: "subagent", arguments: { agent: "worker", task: `Do the job. ${fakeDirective(childActions)}` } },
    ],
  };
  return `Delegate. ${fakeDirective([call, { text: "PARENT-FINAL" }])}`;
}

function pi(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return runPi(["-e", EXTENSION_ENTRY, ...args], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    extraEnv,
    timeoutMs: 90_000,
  });
}

const START = /^subagent worker started · task ([0-9a-f-]{36})$/m;

describe("a blocking dispatch's lines on stderr", () => {
  it("print mode: the start, the child's tool call while it runs, and the end on stderr; stdout is the answer alone", {
    tags: ["slow"],
  }, async () => {
    suite.newEnv();
    // The tool call outlasts the least interval between two lines, so a progress line is due while it runs.
    const run = await pi([
      "-p",
      delegating([
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 6; echo SLEPT" } }] },
        { text: "CHILD-DONE" },
      ]),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("PARENT-FINAL\n");

    const id = START.exec(run.stderr)?.[1];
    expect(id, run.stderr).toBeDefined();
    expect(existsSync(join(suite.env.agentDir, "subagent-sessions", id!, "record.json"))).toBe(true);
    const lines = run.stderr.split("\n").filter((line) => line.startsWith("subagent worker "));
    expect(lines[0]).toBe(`subagent worker started · task ${id}`);
    const progress = lines.slice(1, -1);
    expect(progress.length, run.stderr).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatch(
      new RegExp(`^subagent worker …${id!.slice(-6)} · 00:0[5-9] · ⚡ bash: sleep 6; echo SLEPT · 1 tool call$`),
    );
    expect(lines.at(-1)).toMatch(new RegExp(`^subagent worker succeeded · 00:\\d\\d · 2 turns/.* · task ${id}$`));
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("JSON mode: stdout is pi's events alone, the lines go to stderr; PI_SUBAGENT_PROGRESS=0 silences them", async () => {
    suite.newEnv();
    const json = await pi(["--mode", "json", "-p", delegating([{ text: "CHILD-DONE" }])]);
    expect(json.code, json.stderr).toBe(0);
    const stdoutLines = json.stdout.split("\n").filter((line) => line.trim() !== "");
    for (const line of stdoutLines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(json.stdout).not.toContain("subagent worker started");
    const id = START.exec(json.stderr)?.[1];
    expect(id, json.stderr).toBeDefined();
    expect(json.stderr).toMatch(new RegExp(`^subagent worker succeeded · .* · task ${id}$`, "m"));

    const quiet = await pi(["-p", delegating([{ text: "CHILD-DONE" }])], { PI_SUBAGENT_PROGRESS: "0" });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe("PARENT-FINAL\n");
    expect(quiet.stderr).not.toMatch(/^subagent worker /m);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
