/**
 * Nothing keeps running when pi dies hard (issue 13, items 4, 5, 7, 8), with the real pi 0.73.1 against the
 * scripted fake model: `kill -9` of pi in print mode and in the TUI while a child runs `sleep`, the next start
 * in that agent dir reporting the run as failed exactly once, and a daemonized (`setsid`) grandchild ended
 * when its task times out.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { useE2eSuite, WORKER_BODY_MARKER } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, PI_CLI, runPi } from "../harness/pi-env.ts";
import { processesWithMarker, waitForFile, waitForNoProcesses, waitForProcess } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";
import { startHeldDelegation } from "../harness/blocking-run.ts";

const suite = useE2eSuite();

function delegatingPrompt(calls: Array<Record<string, unknown>>, then?: string): string {
  const action: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Please delegate. ${fakeDirective(then ? [action, { text: then }] : [action])}`;
}

function childTask(text: string, actions: FakeAction | FakeAction[]): string {
  return `${text} ${fakeDirective(actions)}`;
}

/** A child whose bash tool runs `sleep 300`, and the file that appears once the sleep has started. */
function sleepingChild(): { sleeping: string; task: string } {
  const sleeping = join(suite.env.root, "sleep-started");
  return {
    sleeping,
    task: childTask("Long job.", {
      toolCalls: [{ name: "bash", arguments: { command: `touch ${sleeping} && sleep 300` } }],
    }),
  };
}

function taskFolders(agentDir: string): string[] {
  const dir = join(agentDir, "subagent-sessions");
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => !name.startsWith("."))
        .map((name) => join(dir, name))
    : [];
}

function recordIn(folder: string): Record<string, unknown> | undefined {
  const file = join(folder, "record.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : undefined;
}

const OWNER_ENDED = /Subagent task ([0-9a-f-]{36}) \(worker\) failed: its pi process ended while it was running\./;

describe("kill -9 of pi in print mode", () => {
  it("ends the child and its sleep within 5 s, and the next start records and reports the run once", async () => {
    suite.newEnv();
    const { sleeping, task } = sleepingChild();
    const { piPid, run } = await startHeldDelegation(
      suite.env,
      delegatingPrompt([{ agent: "worker", task }]),
      sleeping,
    );
    const [folder] = taskFolders(suite.env.agentDir);
    expect(folder).toBeDefined();
    // The run lock names the child that writes the session, by pid and start time.
    const lock = JSON.parse(readFileSync(join(folder!, "run.lock"), "utf8")) as Record<string, unknown>;
    expect(lock).toMatchObject({ pid: piPid, agent: "worker", mode: "sync" });
    expect(typeof lock.childPid).toBe("number");
    expect(lock.childStart).toMatch(/^\d+$/);
    // The agent's body the child was started with lies beside the lock (nothing of the run in the temp folder).
    expect(readFileSync(join(folder!, "agent-prompt.md"), "utf8")).toContain(WORKER_BODY_MARKER);

    process.kill(piPid, "SIGKILL");
    expect((await run).signal).toBe("SIGKILL");
    const killedAt = Date.now();
    expect(await waitForNoProcesses(suite.env.marker, 5000)).toEqual([]);
    expect(Date.now() - killedAt).toBeLessThan(5000);
    expect(recordIn(folder!), "pi died before it could record anything").toBeUndefined();

    // The next start in that agent dir reports it (on stderr in print mode) and records it as failed.
    const next = await runPi(["-e", EXTENSION_ENTRY, "-p", "Hello."], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    expect(next.code, next.stderr).toBe(0);
    const taskId = OWNER_ENDED.exec(next.stderr)?.[1];
    expect(taskId, next.stderr).toBe(folder!.split("/").at(-1));
    expect(recordIn(folder!)).toMatchObject({
      taskId,
      agent: "worker",
      status: "failed",
      errorMessage: "its pi process ended",
      stopReason: "owner_ended",
    });
    expect(existsSync(join(folder!, "run.lock"))).toBe(false);
    expect(existsSync(join(folder!, "agent-prompt.md"))).toBe(false);

    // Reported once: a third start says nothing more.
    const third = await runPi(["-e", EXTENSION_ENTRY, "-p", "Hello again."], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).not.toMatch(OWNER_ENDED);
  });
});

describe("daemonized grandchildren", () => {
  it("ends a `setsid` grandchild (outside the child's tree) when its task times out", async () => {
    suite.newEnv();
    const started = join(suite.env.root, "daemon-started");
    const command = `(setsid sleep 301 >/dev/null 2>&1 < /dev/null &) && touch ${started} && sleep 300`;
    const task = childTask("Start a daemon.", { toolCalls: [{ name: "bash", arguments: { command } }] });
    const result = await runPi(["-e", EXTENSION_ENTRY, "-p", delegatingPrompt([{ agent: "worker", task }], "Done.")], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      extraEnv: { PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: "4000" },
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(started), "the child's bash tool started the daemon").toBe(true);
    expect(suite.fake.requests.at(-1)!.lastText).toContain("Subagent worker timed out.");
    const left = await waitForNoProcesses(suite.env.marker, 10_000);
    expect(left.map((p) => p.cmdline)).toEqual([]);
  });
});

describe.skipIf(skipTuiTests())("the interactive pi killed by a signal it does not survive", () => {
  it.each(["SIGKILL", "SIGINT"] as const)(
    "%s: ends the child and its sleep within 5 s, and the next TUI start tells the person",
    { tags: ["tui"] },
    async (signal) => {
      const t = await suite.startTui();
      const { sleeping, task } = sleepingChild();
      await t.submit(delegatingPrompt([{ agent: "worker", task }], "Dispatched, waiting for results."));
      await waitForFile(sleeping, 90_000);
      await waitForProcess(suite.env.marker, "sleep 300", 10_000);
      const stay = await t.harnessPids();
      const piPid = (await t.piPid())!;
      process.kill(piPid, signal);
      await t.waitForPiExit(10_000);
      const killedAt = Date.now();
      expect(await waitForNoProcesses(suite.env.marker, 5000, stay)).toEqual([]);
      expect(Date.now() - killedAt).toBeLessThan(5000);
      expect(processesWithMarker(suite.env.marker).some((p) => p.cmdline.includes("sleep 300"))).toBe(false);

      // pi again in the same pane and agent dir: the notice names the run, and its record says why it failed.
      await t.submitToShell(`clear; ${[process.execPath, PI_CLI, "-e", EXTENSION_ENTRY].join(" ")}`);
      const screen = await t.waitForText("its pi process ended", 60_000);
      const [folder] = taskFolders(suite.env.agentDir);
      expect(screen).toContain(folder!.split("/").at(-1)!.slice(0, 20));
      expect(recordIn(folder!)).toMatchObject({
        agent: "worker",
        mode: "async",
        status: "failed",
        errorMessage: "its pi process ended",
      });
      // The harness must know the new pi (the first one's pid is dead) before quitting it.
      expect(await t.piPid()).not.toBe(piPid);
      expect(await t.quit()).toBe(0);
    },
  );
});

describe.skipIf(skipTuiTests())("daemonized grandchildren in the TUI", () => {
  it("ends a `setsid` grandchild when the person cancels its task", { tags: ["tui"] }, async () => {
    const t = await suite.startTui();
    // The envelope quotes the task, directive included: the main agent must only take note of it, not run it.
    suite.fake.on({
      when: (r) => r.lastRole === "user" && r.lastText.includes("[subagent-result]"),
      reply: { text: "Noted the result." },
    });
    const started = join(suite.env.root, "daemon-started");
    const command = `(setsid sleep 302 >/dev/null 2>&1 < /dev/null &) && touch ${started} && sleep 300`;
    const task = childTask("Start a daemon.", { toolCalls: [{ name: "bash", arguments: { command } }] });
    await t.submit(delegatingPrompt([{ agent: "worker", task }], "Dispatched, waiting for results."));
    await waitForFile(started, 90_000);
    // The file is touched as the subshell forks: under load, setsid may not have exec'd the sleep yet.
    await waitForProcess(suite.env.marker, "sleep 302", 30_000);
    const daemon = () => processesWithMarker(suite.env.marker).filter((p) => p.cmdline === "sleep 302");
    // Double-forked: its parent is gone, so no walk of the child's tree reaches it.
    expect(daemon(), "the daemon runs").toHaveLength(1);
    await t.waitForText("Dispatched, waiting for results.", 30_000);
    await t.submit("/subagent-cancel-all");
    await t.waitForText("Cancelled 1 running subagent task(s).", 30_000);
    const stay = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 15_000, stay)).toEqual([]);
    expect(await t.quit()).toBe(0);
  });
});

/**
 * `count` runs whose pi died, each with its lock and running-index entry (this pid with another start time is a
 * process that no longer runs); returns their ids.
 */
function staleRuns(count: number): string[] {
  const sessions = join(suite.env.agentDir, "subagent-sessions");
  mkdirSync(join(sessions, ".running"), { recursive: true });
  const ids = Array.from({ length: count }, (_, n) => `0190aaaa-bbbb-7ccc-8ddd-${String(n).padStart(12, "0")}`);
  for (const id of ids) {
    mkdirSync(join(sessions, id));
    writeFileSync(
      join(sessions, id, "run.lock"),
      JSON.stringify({
        pid: process.pid,
        pidStart: "1",
        agent: "worker",
        since: Date.now() - 1000,
        task: "Old job",
        mode: "sync",
        cwd: suite.env.workDir,
      }),
    );
    writeFileSync(join(sessions, ".running", id), "");
  }
  return ids;
}

function recordedCount(ids: readonly string[]): number {
  return ids.filter((id) => existsSync(join(suite.env.agentDir, "subagent-sessions", id, "record.json"))).length;
}

describe("the start-up clean-up in a quick pi -p", () => {
  it("a command that calls no model still reports every stale run it reaps, on stderr, before pi exits", async () => {
    suite.newEnv();
    const sessions = join(suite.env.agentDir, "subagent-sessions");
    const ids = staleRuns(150);
    const quick = await runPi(["-e", EXTENSION_ENTRY, "-p", "/subagent-cancel-all"], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    expect(quick.code, quick.stderr).toBe(0);
    const reported = quick.stderr
      .split("\n")
      .map((line) => OWNER_ENDED.exec(line)?.[1])
      .filter((id) => id !== undefined);
    expect(reported.sort()).toEqual(ids);
    for (const id of ids)
      expect(recordIn(join(sessions, id))).toMatchObject({ status: "failed", errorMessage: "its pi process ended" });
    expect(readdirSync(join(sessions, ".running"))).toEqual([]);
  });
});

describe.skipIf(skipTuiTests())("the start-up clean-up in the TUI", () => {
  it("2000 stale locks: what the person types is shown while the clean-up is still at work, not after it", {
    tags: ["tui", "slow"],
    timeout: 180_000,
  }, async () => {
    suite.newEnv();
    const ids = staleRuns(2000);
    const t = await suite.startTui();
    // The clean-up has begun: a first run is recorded (re-checked every 100 ms; nothing emits an event).
    await vi.waitFor(() => expect(recordedCount(ids), "runs recorded").toBeGreaterThan(0), {
      timeout: 60_000,
      interval: 100,
    });
    await t.type("typed-while-sweeping");
    await t.waitForText("typed-while-sweeping", 60_000);
    // On a synchronous clean-up the keystrokes wait until every run is recorded.
    expect(recordedCount(ids)).toBeLessThan(ids.length);
    await vi.waitFor(() => expect(recordedCount(ids), "runs recorded").toBe(ids.length), {
      timeout: 90_000,
      interval: 100,
    });
    // What was typed is sent as a prompt (the editor must be empty for /quit).
    await t.press("Enter");
    await suite.fake.waitForRequest((r) => r.lastText.includes("typed-while-sweeping"), 30_000, "the typed prompt");
    expect(await t.quit()).toBe(0);
  });
});
