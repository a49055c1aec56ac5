/**
 * The pool of warm children against fake RPC children (node scripts answering as `pi --mode rpc` does) in a temp
 * agent dir: a child is started ahead with the template's command line under a new task id, a call whose command
 * line is that one takes it (the runner then drives it as it would a cold child), and anything that differs ends
 * it: another command line, another body, a changed file pi reads at its start, a cancel, its idle time, the cap,
 * a drain. Nothing of a child the pool ended is left: no process, no folder.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChildCommand } from "../../../src/run/command-line.ts";
import type { RunOutcome } from "../../../src/run/event-reducer.ts";
import { TASK_MARKER_ENV } from "../../../src/run/parent-watchdog.ts";
import { startRun } from "../../../src/run/runner.ts";
import {
  agentPromptPath,
  readWarmLockOwner,
  sessionFilePath,
  taskDir,
  warmLockPath,
} from "../../../src/run/session-files.ts";
import { indexedTaskIds } from "../../../src/run/startup-work.ts";
import { startupFingerprint, WarmPool, type WarmTemplate } from "../../../src/warm/warm-pool.ts";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import { isTaskId } from "../../../src/shared/nesting.ts";
import { MARKER_VAR } from "../../harness/pi-env.ts";
import { fakeRpcChild } from "../../harness/asking-child.ts";
import { expectNoProcessesLeftAfterEach, processesWithMarker, waitForNoProcesses } from "../../harness/processes.ts";

/** Waits until `read()` satisfies `done` (looking every 20 ms: the pool's state has no events), or fails naming `what`. */
async function waitFor<T>(read: () => T, done: (value: T) => boolean, options: { timeoutMs: number; what: string }) {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets the pool's deferred start (a timer of 0 ms) run. */
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

const markers = expectNoProcessesLeftAfterEach();

/** Answers a prompt with its own pid and the session file it was started on, then exits when stdin ends. */
const FAKE_RPC_CHILD = fakeRpcChild(String.raw`
const session = process.argv[process.argv.indexOf("--session") + 1];
function onCommand(command) {
  out({ type: "response", command: command.type, success: true });
  if (command.type !== "prompt") return;
  out({ type: "agent_start" });
  const text = "pid " + process.pid + " session " + session + " task " + process.env.PI_SUBAGENT_TASK_ID + " got " + command.message;
  out({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop", provider: "fake", model: "m", usage: { input: 1, output: 1 } } });
  out({ type: "agent_end", messages: [] });
}
`);

const roots: string[] = [];
const pools: WarmPool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.drain();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

interface Setup {
  pool: WarmPool;
  agentDir: string;
  cwd: string;
  home: string;
  marker: string;
  template: (overrides?: { args?: string[]; body?: string; agentName?: string }) => WarmTemplate;
}

function setup(max = 2, idleMs = 60_000): Setup {
  const root = mkdtempSync(join(tmpdir(), "warm-pool-"));
  roots.push(root);
  const agentDir = join(root, "agent");
  const cwd = join(root, "work");
  const home = join(root, "home");
  for (const dir of [agentDir, cwd, home]) mkdirSync(dir, { recursive: true });
  const marker = randomUUID();
  markers.push(marker);
  // No delay before a child is started ahead (pi's is 0.3 s): `nextTurn` then waits past it.
  const pool = new WarmPool(Date.now, 0);
  pools.push(pool);
  pool.configure({ max, idleMs });
  const template = (overrides: { args?: string[]; body?: string; agentName?: string } = {}): WarmTemplate => {
    const taskId = newTaskId();
    const command: ChildCommand = {
      command: process.execPath,
      args: [
        "-e",
        FAKE_RPC_CHILD,
        "--",
        "--mode",
        "rpc",
        "--session",
        sessionFilePath(agentDir, taskId),
        ...(overrides.body !== undefined ? ["--append-system-prompt", agentPromptPath(agentDir, taskId)] : []),
        ...(overrides.args ?? []),
      ],
      env: { PATH: process.env.PATH, [MARKER_VAR]: marker, [TASK_MARKER_ENV]: taskId },
      mode: "rpc",
      prompt: "Task: x",
    };
    const template = {
      taskId,
      command,
      cwd,
      agentDir,
      agentName: overrides.agentName ?? "worker",
      home,
      ...(overrides.body !== undefined ? { body: overrides.body } : {}),
    };
    return { ...template, fingerprint: startupFingerprint(template) };
  };
  return { pool, agentDir, cwd, home, marker, template };
}

const ENDED: RunOutcome = {
  status: "succeeded",
  exitCode: 0,
  signal: null,
  output: "ok",
  usage: { turns: 1, input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
  startedAt: 0,
  finishedAt: 0,
  durationMs: 0,
  stderrTail: "",
};

/** Remembers `template` as an ended delegation and waits for its (new) warm child to be waiting. */
async function warmUp(s: Setup, template: WarmTemplate, outcome: RunOutcome = ENDED) {
  const ofAgent = () => s.pool.describe().find((child) => child.agent === template.agentName);
  const before = ofAgent()?.pid;
  s.pool.remember(template, outcome);
  return (await waitFor(ofAgent, (found) => found !== undefined && found.pid !== before, {
    timeoutMs: 10_000,
    what: "a warm child",
  }))!;
}

function warmTaskIds(agentDir: string): string[] {
  const dir = join(agentDir, "subagent-sessions");
  return existsSync(dir)
    ? readdirSync(dir).filter((name) => isTaskId(name) && existsSync(warmLockPath(agentDir, name)))
    : [];
}

/** A JSON-mode child that stays silent (loading pi, as far as anyone can tell) until SIGUSR2, then answers. */
const SILENT_UNTIL_SIGNALLED = String.raw`
const out = (event) => process.stdout.write(JSON.stringify(event) + "\n");
process.on("SIGUSR2", () => {
  out({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text: "loaded" }], stopReason: "stop", provider: "fake", model: "m", usage: { input: 1, output: 1 } } });
  out({ type: "agent_end", messages: [] });
  process.exit(0);
});
require("node:fs").writeFileSync(process.env.READY_FILE, "");
setInterval(() => {}, 1000);
`;

/** Starts, through the runner, a child of this pi that is still loading until `finishLoading()`. */
async function loadingChild(s: Setup) {
  const ready = join(s.cwd, `ready-${randomUUID()}`);
  const handle = startRun({
    command: {
      command: process.execPath,
      args: ["-e", SILENT_UNTIL_SIGNALLED],
      env: { PATH: process.env.PATH, [MARKER_VAR]: s.marker, READY_FILE: ready },
      mode: "json",
      prompt: "Task: x",
    },
    cwd: s.cwd,
    activityTimeoutMs: 30_000,
    hardTimeoutMs: 0,
  });
  await waitFor(() => existsSync(ready), Boolean, { timeoutMs: 10_000, what: "the loading child's signal handler" });
  return {
    finishLoading: async () => {
      process.kill(handle.pid!, "SIGUSR2");
      expect((await handle.done).output).toBe("loaded");
    },
  };
}

describe("the pool of warm children", () => {
  it("starts a child ahead under a new task id, in its own folder, and a call with that command line takes it", async () => {
    const s = setup();
    const first = s.template({ body: "BODY" });
    const waiting = await warmUp(s, first);
    expect(waiting).toMatchObject({ agent: "worker", cwd: s.cwd });
    expect(waiting.rssKiB).toBeGreaterThan(0);
    const [reservedId] = warmTaskIds(s.agentDir);
    expect(reservedId).toBeDefined();
    expect(reservedId).not.toBe(first.taskId);
    // The folder holds what a cold child of that task would be started with, and names this pi.
    expect(readFileSync(agentPromptPath(s.agentDir, reservedId!), "utf8")).toBe("BODY");
    expect(JSON.parse(readFileSync(sessionFilePath(s.agentDir, reservedId!), "utf8"))).toMatchObject({
      type: "session",
      id: reservedId,
      cwd: s.cwd,
    });
    expect(readWarmLockOwner(s.agentDir, reservedId!)?.pid).toBe(process.pid);
    expect(indexedTaskIds(s.agentDir)).toContain(reservedId);

    const reservation = s.pool.reserve(s.agentDir, "worker", s.cwd)!;
    expect(reservation.taskId).toBe(reservedId);
    expect(s.pool.describe()).toEqual([]);
    // The call builds its command line as for a cold child of the reserved id: the same as the warm child's.
    const call = s.template({ body: "BODY" });
    const callTemplate: WarmTemplate = {
      ...call,
      taskId: reservedId!,
      command: {
        ...call.command,
        args: call.command.args.map((arg) => arg.split(call.taskId).join(reservedId!)),
        env: { ...call.command.env, [TASK_MARKER_ENV]: reservedId },
        prompt: "Task: the real job",
      },
    };
    let taken = false;
    const slot = s.pool.slot(reservation, callTemplate, () => {
      taken = true;
    });
    const handle = startRun({
      command: callTemplate.command,
      cwd: s.cwd,
      activityTimeoutMs: 30_000,
      hardTimeoutMs: 0,
      warm: slot,
    });
    expect(taken).toBe(true);
    expect(handle.pid).toBe(waiting.pid);
    expect(existsSync(warmLockPath(s.agentDir, reservedId!))).toBe(false);
    const outcome = await handle.done;
    expect(outcome.status).toBe("succeeded");
    expect(outcome.output).toBe(
      `pid ${waiting.pid} session ${sessionFilePath(s.agentDir, reservedId!)} task ${reservedId} got Task: the real job`,
    );
    // The run's end starts the next child of its shape.
    await waitFor(
      () => s.pool.describe(),
      (list) => list.length === 1 && list[0]!.pid !== waiting.pid,
      {
        timeoutMs: 10_000,
        what: "the next warm child",
      },
    );
  });

  it("ends the waiting child when the call's command line, body or a file pi reads at its start differs", async () => {
    for (const change of ["args", "body", "AGENTS.md"] as const) {
      const s = setup();
      const waiting = await warmUp(s, s.template({ body: "BODY" }));
      expect(processesWithMarker(s.marker).map((p) => p.pid)).toContain(waiting.pid);
      const reservation = s.pool.reserve(s.agentDir, "worker", s.cwd)!;
      const call = s.template({ body: change === "body" ? "OTHER" : "BODY", args: change === "args" ? ["-x"] : [] });
      if (change === "AGENTS.md") writeFileSync(join(s.cwd, "AGENTS.md"), "new rules");
      const command: ChildCommand = {
        ...call.command,
        args: call.command.args.map((arg) => arg.split(call.taskId).join(reservation.taskId)),
        env: { ...call.command.env, [TASK_MARKER_ENV]: reservation.taskId },
      };
      expect(reservation.claim(command, change === "body" ? "OTHER" : "BODY"), change).toBeUndefined();
      expect(await waitForNoProcesses(s.marker, 5000), change).toEqual([]);
      // The folder is the call's now (it runs cold under that id): only the warm claim is gone.
      expect(existsSync(sessionFilePath(s.agentDir, reservation.taskId))).toBe(true);
      expect(existsSync(warmLockPath(s.agentDir, reservation.taskId))).toBe(false);
    }
  });

  it("ends a reserved child the call never takes (refused, or cancelled while queued)", async () => {
    const s = setup();
    await warmUp(s, s.template());
    const reservation = s.pool.reserve(s.agentDir, "worker", s.cwd)!;
    reservation.cancel();
    expect(await waitForNoProcesses(s.marker, 5000)).toEqual([]);
    expect(reservation.claim(s.template().command, undefined)).toBeUndefined();
  });

  it("keeps one child a shape, replaces it when the shape changes, and ends the oldest over the cap", async () => {
    const s = setup(2);
    await warmUp(s, s.template());
    const firstIds = warmTaskIds(s.agentDir);
    // The same shape again: nothing more is started.
    s.pool.remember(s.template(), ENDED);
    await nextTurn();
    expect(s.pool.describe()).toHaveLength(1);
    // The same agent started differently: its waiting child is replaced.
    await warmUp(s, s.template({ args: ["--model", "other"] }));
    await waitFor(
      () => warmTaskIds(s.agentDir),
      (ids) => ids.length === 1 && ids[0] !== firstIds[0],
      { timeoutMs: 5000, what: "the replaced child's folder gone" },
    );
    await warmUp(s, s.template({ agentName: "reviewer" }));
    expect(s.pool.describe().map((child) => child.agent)).toEqual(["worker", "reviewer"]);
    await warmUp(s, s.template({ agentName: "scout" }));
    expect(s.pool.describe().map((child) => child.agent)).toEqual(["reviewer", "scout"]);
    s.pool.drain();
    expect(s.pool.describe()).toEqual([]);
    expect(await waitForNoProcesses(s.marker, 5000)).toEqual([]);
    expect(warmTaskIds(s.agentDir)).toEqual([]);
    expect(readdirSync(join(s.agentDir, "subagent-sessions")).filter((name) => !name.startsWith("."))).toEqual([]);
  });

  it("ends a child after its idle time, and one that died while waiting leaves no folder", async () => {
    const s = setup(2, 300);
    await warmUp(s, s.template());
    const [id] = warmTaskIds(s.agentDir);
    await waitFor(
      () => s.pool.describe(),
      (list) => list.length === 0,
      { timeoutMs: 5000, what: "the idle child ended" },
    );
    expect(await waitForNoProcesses(s.marker, 5000)).toEqual([]);
    expect(existsSync(taskDir(s.agentDir, id!))).toBe(false);

    const t = setup(2, 60_000);
    const waiting = await warmUp(t, t.template());
    process.kill(waiting.pid!, "SIGKILL");
    await waitFor(
      () => warmTaskIds(t.agentDir),
      (ids) => ids.length === 0,
      { timeoutMs: 5000, what: "the dead child's folder gone" },
    );
    expect(t.pool.describe()).toEqual([]);
    expect(t.pool.reserve(t.agentDir, "worker", t.cwd)).toBeUndefined();
  });

  it("waits while another child of this pi is still loading pi, and starts once none is", async () => {
    const s = setup();
    const loading = await loadingChild(s);
    s.pool.remember(s.template(), ENDED);
    await nextTurn();
    // Only the loading child runs: a child started ahead now would take a core from it.
    expect(s.pool.describe()).toEqual([]);
    expect(processesWithMarker(s.marker)).toHaveLength(1);
    await loading.finishLoading();
    await waitFor(
      () => s.pool.describe(),
      (list) => list.length === 1,
      { timeoutMs: 10_000, what: "the child started once the other had loaded" },
    );
  });

  it("forgets a start it was waiting to make when drained (a session switch, /reload, exit)", async () => {
    const s = setup();
    const loading = await loadingChild(s);
    s.pool.remember(s.template(), ENDED);
    await nextTurn();
    s.pool.drain();
    await loading.finishLoading();
    await nextTurn();
    await nextTurn();
    expect(s.pool.describe()).toEqual([]);
    expect(await waitForNoProcesses(s.marker, 5000)).toEqual([]);
    expect(warmTaskIds(s.agentDir)).toEqual([]);
  });

  it("starts nothing when off, nor after a run that never reached the model", async () => {
    const s = setup(0);
    s.pool.remember(s.template(), ENDED);
    const t = setup(2);
    t.pool.remember(t.template(), { ...ENDED, status: "failed", usage: { ...ENDED.usage, turns: 0 } });
    await nextTurn();
    expect(s.pool.describe()).toEqual([]);
    expect(t.pool.describe()).toEqual([]);
    expect(processesWithMarker(s.marker)).toEqual([]);
    expect(processesWithMarker(t.marker)).toEqual([]);
    expect(s.pool.reserve(s.agentDir, "worker", s.cwd)).toBeUndefined();
  });

  it("starts nothing when a file pi reads at its start changed since the call was prepared (its own child wrote it)", async () => {
    const s = setup();
    const template = s.template();
    mkdirSync(join(s.cwd, ".pi", "extensions"), { recursive: true });
    writeFileSync(join(s.cwd, ".pi", "extensions", "planted.ts"), "export default function () {}\n");
    s.pool.remember(template, ENDED);
    await nextTurn();
    expect(s.pool.describe()).toEqual([]);
    expect(processesWithMarker(s.marker)).toEqual([]);
    expect(warmTaskIds(s.agentDir)).toEqual([]);
    // A call prepared after the change is the next template: its child is started ahead.
    await warmUp(s, s.template());
  });

  it("a lower cap ends the children over it", async () => {
    const s = setup(2);
    await warmUp(s, s.template());
    await warmUp(s, s.template({ agentName: "reviewer" }));
    s.pool.configure({ max: 0, idleMs: 60_000 });
    expect(s.pool.describe()).toEqual([]);
    expect(await waitForNoProcesses(s.marker, 5000)).toEqual([]);
  });
});
