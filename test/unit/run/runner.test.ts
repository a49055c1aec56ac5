/**
 * The runner against fake children: `node -e <script>` printing canned pi JSON lines. Every child carries a
 * unique marker in its environment, so the test can check that no process (child or grandchild) is left.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ChildCommand } from "../../../src/run/command-line.ts";
import { trackedChildCount } from "../../../src/run/processes.ts";
import { startRun, type RunSpec } from "../../../src/run/runner.ts";
import { TASK_MARKER_ENV } from "../../../src/run/parent-watchdog.ts";
import type { RunState } from "../../../src/run/event-reducer.ts";
import { MARKER_VAR } from "../../harness/pi-env.ts";
import { expectNoProcessesLeftAfterEach, processesWithMarker, waitForNoProcesses } from "../../harness/processes.ts";
import {
  agentEnd,
  assistantEnd,
  BASH_TOOL_STREAM,
  HTTP_500_STREAM,
  line,
  retryEnd,
  retryStart,
  sessionLine,
  toolStart,
} from "../fixtures/pi-events.ts";

const SESSION_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const GRACE_MS = 300;
const markers = expectNoProcessesLeftAfterEach();

/** A child that runs `script` in node, with helpers `out(line)` and `err(text)` and the canned lines as `L`. */
function nodeChild(script: string, canned: Record<string, string> = {}): { command: ChildCommand; marker: string } {
  const marker = randomUUID();
  markers.push(marker);
  const prelude = [
    "const out = (l) => process.stdout.write(l + '\\n');",
    "const err = (t) => process.stderr.write(t);",
    `const L = ${JSON.stringify(canned)};`,
    "const sleep = (ms) => new Promise((r) => setTimeout(r, ms));",
  ].join("\n");
  return {
    marker,
    command: {
      command: process.execPath,
      args: ["-e", `${prelude}\n(async () => {\n${script}\n})();`],
      env: { PATH: process.env.PATH, [MARKER_VAR]: marker },
      mode: "json",
      prompt: "Task: test",
    },
  };
}

/** Starts a fake child's command directly (not through the runner), with `extraEnv` added. */
function spawnMarked(command: ChildCommand, extraEnv: Record<string, string>) {
  return spawn(command.command, command.args, { env: { ...command.env, ...extraEnv }, stdio: "ignore" });
}

/** True while `pid` runs (a zombie, already dead but not yet reaped by whoever adopted it, does not count). */
function isRunning(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return false;
  }
}

/** Resolves when the run's state (seen through onUpdate) first satisfies `predicate`. */
function stateWatcher() {
  const waiters: Array<{ predicate: (state: RunState) => boolean; resolve: () => void }> = [];
  return {
    onUpdate(state: RunState) {
      for (const waiter of [...waiters]) {
        if (waiter.predicate(state)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    until(predicate: (state: RunState) => boolean): Promise<void> {
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
}

function run(command: ChildCommand, overrides: Partial<RunSpec> = {}) {
  return startRun({
    command,
    cwd: process.cwd(),
    activityTimeoutMs: 10_000,
    hardTimeoutMs: 0,
    graceMs: GRACE_MS,
    ...overrides,
  });
}

const answer = (text: string) => assistantEnd({ text, usage: { input: 1200, output: 300, cost: 0.0021 } });

describe("startRun: a child that finishes by itself", () => {
  it("succeeded: reads the real pi stream and reports output, usage and model", async () => {
    const { command } = nodeChild(
      `process.stdout.write(require("node:fs").readFileSync(${JSON.stringify(BASH_TOOL_STREAM)}));`,
    );
    const handle = run(command);
    expect(handle.pid).toBeGreaterThan(0);
    const outcome = await handle.done;
    expect(outcome).toMatchObject({
      status: "succeeded",
      exitCode: 0,
      signal: null,
      stopReason: "stop",
      output: "final answer here",
      model: "fake/fake-model",
      stderrTail: "",
    });
    expect(outcome.errorMessage).toBeUndefined();
    expect(outcome.usage).toMatchObject({ turns: 2, input: 200, output: 40 });
    expect(outcome.durationMs).toBe(outcome.finishedAt - outcome.startedAt);
    expect(handle.state.phase).toBe("done");
  });

  it("keeps a bounded tail of stderr", async () => {
    const { command } = nodeChild(`err("x".repeat(10000)); err("\\nlast words\\n"); out(L.answer);`, {
      answer: answer("ok"),
    });
    const outcome = await run(command).done;
    expect(outcome.status).toBe("succeeded");
    expect(outcome.stderrTail.endsWith("last words")).toBe(true);
    expect(outcome.stderrTail.length).toBeLessThanOrEqual(4096);
  });

  it("failed: a non-zero exit keeps the model's error and the stderr tail", async () => {
    const { command } = nodeChild(
      `process.stdout.write(require("node:fs").readFileSync(${JSON.stringify(HTTP_500_STREAM)})); err("Error: 500 boom\\n"); process.exitCode = 1;`,
    );
    const outcome = await run(command).done;
    expect(outcome).toMatchObject({
      status: "failed",
      exitCode: 1,
      stopReason: "error",
      errorMessage: "500 boom",
      stderrTail: "Error: 500 boom",
    });
  });

  it("failed: exit 1 without any event describes the exit", async () => {
    const { command } = nodeChild(`err("Unknown option --bogus\\n"); process.exit(3);`);
    const outcome = await run(command).done;
    expect(outcome).toMatchObject({
      status: "failed",
      exitCode: 3,
      errorMessage: "the subagent process exited with code 3",
      output: "",
    });
    expect(outcome.stderrTail).toBe("Unknown option --bogus");
  });

  it("failed: the executable cannot be started", async () => {
    const handle = startRun({
      command: {
        command: "/nonexistent/pi-subagent-no-such-binary",
        args: [],
        env: {},
        mode: "json",
        prompt: "Task: test",
      },
      cwd: process.cwd(),
      activityTimeoutMs: 1000,
      hardTimeoutMs: 0,
    });
    const outcome = await handle.done;
    expect(outcome.status).toBe("failed");
    expect(outcome.stopReason).toBe("error");
    expect(outcome.errorMessage).toMatch(/^could not start the subagent process: .*ENOENT/);
    expect(trackedChildCount()).toBe(0);
  });

  it("reassembles lines written in pieces, and reports progress as it goes", async () => {
    const { command } = nodeChild(
      `const a = L.answer; out(L.tool); await sleep(50); process.stdout.write(a.slice(0, 40)); await sleep(50); process.stdout.write(a.slice(40) + "\\n");`,
      { tool: toolStart("read", { path: "README.md" }), answer: answer("pieced together") },
    );
    const seen: string[] = [];
    const outcome = await run(command, { onUpdate: (state) => seen.push(state.phase) }).done;
    expect(outcome.output).toBe("pieced together");
    expect(seen).toContain("tool");
  });

  it("untracks the child once it is gone", async () => {
    const { command } = nodeChild(`out(L.answer);`, { answer: answer("x") });
    await run(command).done;
    expect(trackedChildCount()).toBe(0);
  });
});

describe("startRun: timeouts", () => {
  it("timed out: silence past the activity timeout ends the run as activity_timeout", async () => {
    const { command } = nodeChild(`out(L.session); setInterval(() => {}, 1e6);`, { session: sessionLine(SESSION_ID) });
    const outcome = await run(command, { activityTimeoutMs: 400 }).done;
    expect(outcome).toMatchObject({
      status: "timed out",
      stopReason: "activity_timeout",
      exitCode: null,
      signal: "SIGTERM",
    });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(400);
  });

  it("output on stdout or stderr resets the activity timer", async () => {
    const { command } = nodeChild(
      `for (let i = 0; i < 10; i++) { i % 2 ? err("tick\\n") : out(L.session); await sleep(150); } out(L.answer);`,
      { session: sessionLine(SESSION_ID), answer: answer("still alive") },
    );
    const outcome = await run(command, { activityTimeoutMs: 1000 }).done;
    expect(outcome).toMatchObject({ status: "succeeded", output: "still alive" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(1500);
  });

  it("the activity timeout counts from the last output, not from the start", async () => {
    const { command } = nodeChild(
      `for (let i = 0; i < 5; i++) { out(L.session); await sleep(200); } setInterval(() => {}, 1e6);`,
      {
        session: sessionLine(SESSION_ID),
      },
    );
    const outcome = await run(command, { activityTimeoutMs: 800 }).done;
    expect(outcome.stopReason).toBe("activity_timeout");
    expect(outcome.durationMs).toBeGreaterThanOrEqual(800 + 800);
  });

  it("a child's silent start is not counted: the quiet time starts at its first output", async () => {
    const { command } = nodeChild(`await sleep(1200); out(L.session); out(L.answer);`, {
      session: sessionLine(SESSION_ID),
      answer: answer("started late"),
    });
    const outcome = await run(command, { activityTimeoutMs: 400 }).done;
    expect(outcome).toMatchObject({ status: "succeeded", output: "started late" });
  });

  it("a slow start, then silence: stopped after the activity timeout from its first output, not the start allowance", async () => {
    // The first check (at 400 ms) finds no output yet and waits for the start allowance (60 s); the first output must
    // bring the next check back to the activity timeout.
    const { command } = nodeChild(`await sleep(900); out(L.session); setInterval(() => {}, 1e6);`, {
      session: sessionLine(SESSION_ID),
    });
    const outcome = await run(command, { activityTimeoutMs: 400 }).done;
    expect(outcome).toMatchObject({ status: "timed out", stopReason: "activity_timeout" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(900 + 400);
    expect(outcome.durationMs).toBeLessThan(10_000);
  });

  it("a child that never writes is still stopped, once its start allowance is over", async () => {
    const { command } = nodeChild(`setInterval(() => {}, 1e6);`, {});
    const outcome = await run(command, { activityTimeoutMs: 200, startAllowanceMs: 700 }).done;
    expect(outcome).toMatchObject({ status: "timed out", stopReason: "activity_timeout" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(700);
  });

  it("timed out: the hard timeout ends a busy child as hard_timeout", async () => {
    const { command } = nodeChild(`setInterval(() => out(L.session), 50);`, { session: sessionLine(SESSION_ID) });
    const outcome = await run(command, { activityTimeoutMs: 10_000, hardTimeoutMs: 600 }).done;
    expect(outcome).toMatchObject({ status: "timed out", stopReason: "hard_timeout" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(600);
  });

  it("timeouts <= 0 are off", async () => {
    const { command } = nodeChild(`await sleep(700); out(L.answer);`, { answer: answer("slow but fine") });
    const outcome = await run(command, { activityTimeoutMs: 0, hardTimeoutMs: -1 }).done;
    expect(outcome).toMatchObject({ status: "succeeded", output: "slow but fine" });
  });

  it("a pending retry suspends the activity timer", async () => {
    const { command } = nodeChild(
      `out(L.error); out(L.agentEnd); out(L.retryStart); await sleep(2000);
       out(L.agentStart); out(L.answer); out(L.retryEnd); out(L.agentEnd);`,
      {
        error: assistantEnd({ stopReason: "error", errorMessage: "503 overloaded" }),
        agentEnd: agentEnd(),
        retryStart: retryStart(1, 3, "503 overloaded", 2000),
        agentStart: line({ type: "agent_start" }),
        answer: answer("worked on the second try"),
        retryEnd: retryEnd(true, 1),
      },
    );
    const outcome = await run(command, { activityTimeoutMs: 800 }).done;
    expect(outcome).toMatchObject({ status: "succeeded", output: "worked on the second try", stopReason: "stop" });
    expect(outcome.errorMessage).toBeUndefined();
    expect(outcome.durationMs).toBeGreaterThanOrEqual(2000);
  });

  it("the gap between a failed model call and pi's retry announcement is not idleness (pi 0.73.1's order)", async () => {
    // pi 0.73.1 prints the failed call's message_end and turn_end, runs its extensions' agent_end handlers (a
    // while, on a busy machine), then prints agent_end (no willRetry) and auto_retry_start.
    const { command } = nodeChild(
      `out(L.error); out(L.turnEnd); await sleep(1300); out(L.agentEnd); out(L.retryStart); await sleep(300);
       out(L.agentStart); out(L.answer); out(L.retryEnd); out(L.agentEnd);`,
      {
        error: assistantEnd({ stopReason: "error", errorMessage: "503 overloaded" }),
        turnEnd: line({ type: "turn_end" }),
        agentEnd: agentEnd(),
        retryStart: retryStart(1, 3, "503 overloaded", 300),
        agentStart: line({ type: "agent_start" }),
        answer: answer("worked after the gap"),
        retryEnd: retryEnd(true, 1),
      },
    );
    const outcome = await run(command, { activityTimeoutMs: 1000 }).done;
    expect(outcome).toMatchObject({ status: "succeeded", output: "worked after the gap" });
  });

  it("a failed call that pi never follows up still times out, one window later", async () => {
    const { command } = nodeChild(`out(L.error); out(L.turnEnd); setInterval(() => {}, 1e6);`, {
      error: assistantEnd({ stopReason: "error", errorMessage: "503 overloaded" }),
      turnEnd: line({ type: "turn_end" }),
    });
    const outcome = await run(command, { activityTimeoutMs: 500 }).done;
    expect(outcome).toMatchObject({ status: "timed out", stopReason: "activity_timeout" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(1000);
  });

  it("a retried request that then hangs still hits the activity timeout", async () => {
    const { command } = nodeChild(
      `out(L.error); out(L.retryStart); await sleep(1600); out(L.agentStart); out(L.turnStart); setInterval(() => {}, 1e6);`,
      {
        error: assistantEnd({ stopReason: "error", errorMessage: "503 overloaded" }),
        retryStart: retryStart(1, 3, "503 overloaded", 1600),
        agentStart: line({ type: "agent_start" }),
        turnStart: line({ type: "turn_start" }),
      },
    );
    const outcome = await run(command, { activityTimeoutMs: 800 }).done;
    expect(outcome).toMatchObject({ status: "timed out", stopReason: "activity_timeout" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(1600 + 800);
  });

  it("a timeout racing the exit gives either the child's success or the timeout, never a failure", async () => {
    // The child answers and exits right around the moment the hard timeout fires.
    const results = await Promise.all(
      [250, 300, 350, 400].map(async (exitAt) => {
        const { command } = nodeChild(`await sleep(${exitAt}); out(L.answer); process.exit(0);`, {
          answer: answer("just in time"),
        });
        const handle = run(command, { hardTimeoutMs: 330 });
        return handle.done;
      }),
    );
    for (const outcome of results) {
      if (outcome.status === "succeeded")
        expect(outcome).toMatchObject({ exitCode: 0, output: "just in time", stopReason: "stop" });
      else expect(outcome).toMatchObject({ status: "timed out", stopReason: "hard_timeout" });
    }
  });

  it("a stop after the child exited changes nothing", async () => {
    const { command } = nodeChild(`out(L.answer);`, { answer: answer("done") });
    const handle = run(command);
    const outcome = await handle.done;
    handle.stop("aborted");
    expect(outcome.status).toBe("succeeded");
    expect(await handle.done).toBe(outcome);
  });
});

describe("startRun: stopping", () => {
  it("cancelled: the abort signal ends the run as aborted", async () => {
    const { command } = nodeChild(`out(L.session); setInterval(() => {}, 1e6);`, { session: sessionLine(SESSION_ID) });
    const controller = new AbortController();
    const watcher = stateWatcher();
    const handle = run(command, { signal: controller.signal, onUpdate: watcher.onUpdate });
    await watcher.until((state) => state.sessionId === SESSION_ID);
    controller.abort();
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "cancelled", stopReason: "aborted", signal: "SIGTERM" });
  });

  it("cancelled: a signal that is already aborted stops the child at once", async () => {
    const { command } = nodeChild(`setInterval(() => {}, 1e6);`);
    const controller = new AbortController();
    controller.abort();
    const outcome = await run(command, { signal: controller.signal }).done;
    expect(outcome).toMatchObject({ status: "cancelled", stopReason: "aborted" });
  });

  it("the first cause wins", async () => {
    const { command } = nodeChild(`out(L.session); setInterval(() => {}, 1e6);`, { session: sessionLine(SESSION_ID) });
    const watcher = stateWatcher();
    const handle = run(command, { onUpdate: watcher.onUpdate });
    await watcher.until((state) => state.events > 0);
    handle.stop("killed_on_shutdown");
    handle.stop("aborted");
    expect(await handle.done).toMatchObject({ status: "cancelled", stopReason: "killed_on_shutdown" });
  });

  it("a child that ignores SIGTERM is killed after the grace period", async () => {
    const { command } = nodeChild(`process.on("SIGTERM", () => {}); out(L.session); setInterval(() => {}, 1e6);`, {
      session: sessionLine(SESSION_ID),
    });
    const watcher = stateWatcher();
    const handle = run(command, { onUpdate: watcher.onUpdate });
    await watcher.until((state) => state.events > 0);
    const stoppedAt = Date.now();
    handle.stop("aborted");
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "cancelled", stopReason: "aborted", signal: "SIGKILL" });
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(GRACE_MS - 20);
  });

  it("stopping kills a grandchild in its own process group (like pi's bash tool running sleep 300)", async () => {
    const { command, marker } = nodeChild(
      `const { spawn } = require("node:child_process");
       const sleeper = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
       out(JSON.stringify({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: { command: "sleep 300" }, pid: sleeper.pid }));
       setInterval(() => {}, 1e6);`,
    );
    const watcher = stateWatcher();
    const handle = run(command, { onUpdate: watcher.onUpdate });
    await watcher.until((state) => state.currentTool?.summary === "sleep 300");
    const running = processesWithMarker(marker);
    expect(running.map((p) => p.cmdline)).toEqual(expect.arrayContaining(["sleep 300"]));
    const sleeper = running.find((p) => p.cmdline === "sleep 300")!;

    handle.stop("aborted");
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "cancelled", stopReason: "aborted" });
    expect(await waitForNoProcesses(marker, 5000)).toEqual([]);
    expect(isRunning(sleeper.pid)).toBe(false);
  });

  it("kills a grandchild that ignores SIGTERM and holds the child's stdout open", async () => {
    const { command, marker } = nodeChild(
      `const { spawn } = require("node:child_process");
       spawn("sh", ["-c", "trap '' TERM; sleep 300"], { detached: true, stdio: ["ignore", "inherit", "inherit"] });
       out(L.tool);
       setInterval(() => {}, 1e6);`,
      { tool: toolStart("bash", { command: "stubborn" }) },
    );
    const watcher = stateWatcher();
    const handle = run(command, { onUpdate: watcher.onUpdate });
    await watcher.until((state) => state.currentTool !== undefined);
    await new Promise<void>((resolve) => {
      // Wait (by event-free re-checks of /proc) until the shell has started its sleep.
      const check = () =>
        processesWithMarker(marker).some((p) => p.cmdline === "sleep 300") ? resolve() : setTimeout(check, 20);
      check();
    });
    handle.stop("hard_timeout");
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "timed out", stopReason: "hard_timeout" });
    expect(await waitForNoProcesses(marker, 5000)).toEqual([]);
  });
});

describe("startRun: what a child leaves running when it exits (issue 28, item 2)", () => {
  /** A child carrying a task marker whose "bash tool" starts `sleep 300` in a group of its own, then `ending`. */
  function childLeavingSleep(ending: string) {
    const { command, marker } = nodeChild(
      `const { spawn } = require("node:child_process");
       const sleeper = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
       sleeper.unref();
       out(JSON.stringify({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: { command: "sleep 300 &" }, pid: sleeper.pid }));
       out(L.answer);
       ${ending}`,
      { answer: answer("done") },
    );
    command.env = { ...command.env, [TASK_MARKER_ENV]: randomUUID() };
    return { command, marker };
  }

  it("ends the task's processes when the child is killed with SIGKILL, before the outcome is delivered", async () => {
    const { command, marker } = childLeavingSleep(`setTimeout(() => process.kill(process.pid, "SIGKILL"), 50);`);
    const watcher = stateWatcher();
    const handle = run(command, { onUpdate: watcher.onUpdate });
    await watcher.until((state) => state.currentTool?.summary === "sleep 300 &");
    const sleeper = processesWithMarker(marker).find((p) => p.cmdline === "sleep 300");
    expect(sleeper, "the sleep was started").toBeDefined();
    const outcome = await handle.done;
    expect(outcome.signal).toBe("SIGKILL");
    expect(isRunning(sleeper!.pid), "the sleep outlived its child pi").toBe(false);
  });

  it("ends what a child that exits normally left in the background (nohup … &)", async () => {
    const { command, marker } = childLeavingSleep(`setTimeout(() => process.exit(0), 50);`);
    const watcher = stateWatcher();
    const handle = run(command, { onUpdate: watcher.onUpdate });
    await watcher.until((state) => state.currentTool?.summary === "sleep 300 &");
    const sleeper = processesWithMarker(marker).find((p) => p.cmdline === "sleep 300");
    expect(sleeper).toBeDefined();
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "succeeded", output: "done" });
    expect(isRunning(sleeper!.pid)).toBe(false);
  });

  it("leaves alone what does not carry the child's own task marker", async () => {
    const { command } = childLeavingSleep(`setTimeout(() => process.exit(0), 50);`);
    const other = nodeChild(`setInterval(() => {}, 1e6);`);
    const bystander = spawnMarked(other.command, { [TASK_MARKER_ENV]: randomUUID() });
    try {
      await run(command).done;
      expect(isRunning(bystander.pid!)).toBe(true);
    } finally {
      bystander.kill("SIGKILL");
    }
  });
});
