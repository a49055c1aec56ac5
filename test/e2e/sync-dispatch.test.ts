/**
 * Synchronous dispatch with the real pi 0.73.1: print, JSON and RPC mode against the scripted fake model.
 * The parent is scripted through `@fake` directives in the prompt; the child through directives inside the
 * task it is given (the child's prompt is `Task: <task>`).
 *
 * Contract tests (both pis) are tagged one by one; the others test our own logic and run on pi 1.x only.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite, WORKER_BODY } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, FAKE_REASONER, parseJsonLines, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { PiRpc } from "../harness/rpc.ts";

const suite = useE2eSuite();
const newEnv = () => suite.newEnv();

/** A parent prompt whose first model call dispatches `calls`, and whose next call quotes the tool results. */
function delegatingPrompt(calls: Array<Record<string, unknown>>): string {
  const action: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Please delegate. ${fakeDirective([action])}`;
}

function childTask(text: string, actions: FakeAction | FakeAction[]): string {
  return `${text} ${fakeDirective(actions)}`;
}

const sessionIdIn = (text: string) => /\[subagent session: ([0-9a-f-]{36})\]/.exec(text)?.[1];

function printPi(prompt: string, extraEnv: NodeJS.ProcessEnv = {}, mode: "print" | "json" = "print") {
  const args = ["-e", EXTENSION_ENTRY, ...(mode === "json" ? ["--mode", "json"] : []), "-p", prompt];
  return runPi(args, { env: suite.env.env, cwd: suite.env.workDir, extraEnv, timeoutMs: 90_000 });
}

describe("synchronous dispatch in print mode", () => {
  it("runs the child with the agent's body, the task, and the project's model and thinking, and returns its answer", {
    tags: ["contract"],
  }, async () => {
    newEnv();
    suite.env.writeWorkFile(
      ".pi/subagent-isolation.json",
      JSON.stringify({ worker: { model: `fake/${FAKE_REASONER}`, thinking: "high" } }),
    );
    const result = await printPi(
      delegatingPrompt([{ agent: "worker", task: childTask("Count the files.", { text: "CHILD-ANSWER-42" }) }]),
    );
    expect(result.code, result.stderr).toBe(0);

    const child = suite.fake.requests.find(isWorkerRequest);
    expect(child, "the child's request reached the model").toBeDefined();
    expect(child!.system).toContain(WORKER_BODY);
    expect(child!.lastRole).toBe("user");
    expect(child!.lastText.startsWith("Task: Count the files.")).toBe(true);
    expect(child!.model).toBe(FAKE_REASONER);
    expect(child!.reasoningEffort).toBe("high");
    // The child is a subagent: it gets no roster.
    expect(child!.system).not.toContain("## Available Subagents");

    expect(result.stdout).toContain("CHILD-ANSWER-42");
    const id = sessionIdIn(result.stdout);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(existsSync(join(suite.env.agentDir, "subagent-sessions", id!, "session.jsonl"))).toBe(true);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("resumes a session: the child's second request carries the first exchange", { tags: ["contract"] }, async () => {
    newEnv();
    const first = await printPi(
      delegatingPrompt([{ agent: "worker", task: childTask("First task.", { text: "FIRST-ANSWER" }) }]),
    );
    expect(first.code, first.stderr).toBe(0);
    const id = sessionIdIn(first.stdout);
    expect(id).toBeDefined();

    const second = await printPi(
      delegatingPrompt([
        { agent: "worker", sessionId: id, task: childTask("Second task.", { text: "SECOND-ANSWER" }) },
      ]),
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("SECOND-ANSWER");
    expect(sessionIdIn(second.stdout)).toBe(id);
    const resumed = suite.fake.requests.filter(isWorkerRequest).at(-1)!;
    const texts = resumed.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    expect(texts.some((t) => t.includes("Task: First task."))).toBe(true);
    expect(texts.some((t) => t.includes("FIRST-ANSWER"))).toBe(true);
    expect(resumed.lastText).toContain("Task: Second task.");
  });

  it("rejects a sessionId that no earlier call returned, without starting a child", async () => {
    newEnv();
    const result = await printPi(delegatingPrompt([{ agent: "worker", sessionId: "my-session", task: "Anything." }]));
    expect(result.code).toBe(0);
    const parentFollowUp = suite.fake.requests.at(-1)!;
    expect(parentFollowUp.lastRole).toBe("tool");
    expect(parentFollowUp.lastText).toContain('"my-session" is not a sessionId this tool handed out');
    expect(suite.fake.requests.some(isWorkerRequest)).toBe(false);
  });

  it("reports a failing child as failed, with the model's error", { tags: ["contract"] }, async () => {
    newEnv();
    const result = await printPi(
      delegatingPrompt([
        { agent: "worker", task: childTask("Break.", { httpError: { status: 500, message: "upstream exploded" } }) },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    const toolText = suite.fake.requests.at(-1)!.lastText;
    expect(toolText).toContain("Subagent worker failed.");
    // pi's own wording of a provider error differs by version (0.73.1 "500 upstream exploded", 1.x "500: {...}").
    expect(toolText).toMatch(/- Error: 500\b.*upstream exploded/);
    expect(toolText).toMatch(/\[subagent session: [0-9a-f-]{36}\]/);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("ends a silent child at the activity timeout and leaves no process behind (its bash sleep included)", async () => {
    newEnv();
    const marker = join(suite.env.root, "sleep-started");
    const task = childTask("Wait.", {
      toolCalls: [{ name: "bash", arguments: { command: `touch ${marker} && sleep 300` } }],
    });
    const result = await printPi(delegatingPrompt([{ agent: "worker", task }]), {
      PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: "4000",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(marker), "the child's bash tool was running sleep 300").toBe(true);
    const toolText = suite.fake.requests.at(-1)!.lastText;
    expect(toolText).toContain("Subagent worker timed out.");
    expect(toolText).toContain("Stop reason: activity_timeout (no output for 4 s)");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("Ctrl+C (SIGINT) on pi -p during a delegation leaves no process behind and the task recorded", {
    tags: ["contract"],
  }, async () => {
    newEnv();
    const marker = join(suite.env.root, "sleep-started");
    const task = childTask("Wait.", {
      toolCalls: [{ name: "bash", arguments: { command: `touch ${marker} && sleep 300` } }],
    });
    let piPid = 0;
    const run = runPi(["-e", EXTENSION_ENTRY, "-p", delegatingPrompt([{ agent: "worker", task }])], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
      onSpawn: (pid) => (piPid = pid),
    });
    await waitForFile(marker, 60_000);
    process.kill(piPid, "SIGINT");
    const result = await run;
    expect(result.signal).toBe("SIGINT");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
    const sessions = join(suite.env.agentDir, "subagent-sessions");
    const [id] = readdirSync(sessions).filter((name) => !name.startsWith("."));
    const record = JSON.parse(readFileSync(join(sessions, id!, "record.json"), "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({
      agent: "worker",
      mode: "sync",
      status: "cancelled",
      stopReason: "killed_on_shutdown",
      cancelledBy: "none",
    });
    expect(existsSync(join(sessions, id!, "run.lock"))).toBe(false);
  });

  it("spares a child at the depth limit the package given with -e: its model sees no subagent tool", {
    tags: ["contract"],
  }, async () => {
    newEnv();
    const result = await printPi(
      delegatingPrompt([{ agent: "worker", task: childTask("Look around.", { text: "CHILD-LOOKED" }) }]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("CHILD-LOOKED");
    const parent = suite.fake.requests.find((req) => !isWorkerRequest(req))!;
    expect(parent.tools).toContain("subagent");
    const child = suite.fake.requests.find(isWorkerRequest)!;
    expect(child.tools).toContain("read");
    expect(child.tools).not.toContain("subagent");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("spares a child at the depth limit the installed package's tool too: its call finds no such tool and starts nothing", {
    tags: ["contract"],
  }, async () => {
    newEnv();
    const install = await runPi(["install", REPO_ROOT], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 120_000,
    });
    expect(install.code, install.stderr).toBe(0);
    const task = childTask("Try to delegate.", [
      { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "nested" } }] },
      { text: "CHILD-GAVE-UP" },
    ]);
    const result = await runPi(["-p", delegatingPrompt([{ agent: "worker", task }])], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const parent = suite.fake.requests.find((req) => !isWorkerRequest(req))!;
    expect(parent.tools).toContain("subagent");
    const [child, childFollowUp, ...more] = suite.fake.requests.filter(isWorkerRequest);
    expect(child!.tools).toContain("read");
    expect(child!.tools).not.toContain("subagent");
    // pi's own answer to a call of a tool it does not have; no grandchild was started.
    expect(childFollowUp!.lastRole).toBe("tool");
    expect(childFollowUp!.lastText).toBe("Tool subagent not found");
    expect(more).toEqual([]);
    expect(result.stdout).toContain("CHILD-GAVE-UP");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it.each(["rpc", "json"])(
    "a child in %s mode starts with --offline even when the parent pi is online",
    { tags: ["contract"] },
    async (childMode) => {
      newEnv();
      // pi 1.x's RPC mode refreshes model catalogs over the network at start unless offline; the parent here is
      // not offline, so a child that reports PI_OFFLINE=1 got it from its own --offline (pi sets it from the flag).
      const { PI_OFFLINE: _offline, ...online } = suite.env.env;
      const task = childTask("Report.", [
        { toolCalls: [{ name: "bash", arguments: { command: "echo child-offline=${PI_OFFLINE:-unset}" } }] },
        { text: "CHILD-REPORTED" },
      ]);
      const result = await runPi(["-e", EXTENSION_ENTRY, "-p", delegatingPrompt([{ agent: "worker", task }])], {
        env: { ...online, PI_SUBAGENT_CHILD_MODE: childMode },
        cwd: suite.env.workDir,
        timeoutMs: 90_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("CHILD-REPORTED");
      const childFollowUp = suite.fake.requests.filter(isWorkerRequest).at(-1)!;
      expect(childFollowUp.lastRole).toBe("tool");
      expect(childFollowUp.lastText.trim()).toBe("child-offline=1");
      expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
    },
  );

  it("runs two delegations of one message at the same time", async () => {
    newEnv();
    // A barrier: each child's model call is answered only once the other child's call has arrived, which can
    // only happen if both children run at the same time (run one after the other, this test times out).
    const otherArrived = (mine: string, other: string) => ({
      when: (req: FakeRequest) => isWorkerRequest(req) && req.lastText.includes(mine),
      reply: async () => {
        await suite.fake.waitForRequest(
          (r) => isWorkerRequest(r) && r.lastText.includes(other),
          60_000,
          `child ${other}`,
        );
        return { text: `${mine}-DONE` };
      },
      times: 1,
    });
    suite.fake.on(otherArrived("JOB-A", "JOB-B")).on(otherArrived("JOB-B", "JOB-A"));
    const started = Date.now();
    const result = await printPi(
      delegatingPrompt([
        { agent: "worker", task: "Job JOB-A." },
        { agent: "worker", task: "Job JOB-B." },
      ]),
    );
    const total = Date.now() - started;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("JOB-A-DONE");
    expect(result.stdout).toContain("JOB-B-DONE");
    console.log(`two delegations in one message: ${total} ms in all`);
  });
});

describe("synchronous dispatch in JSON mode", () => {
  it("returns the same result in the tool's JSON events", { tags: ["contract"] }, async () => {
    newEnv();
    const result = await printPi(
      delegatingPrompt([{ agent: "worker", task: childTask("Say it.", { text: "JSON-CHILD" }) }]),
      {},
      "json",
    );
    expect(result.code, result.stderr).toBe(0);
    const end = parseJsonLines(result.stdout).find(
      (e) => e.type === "tool_execution_end" && e.toolName === "subagent",
    ) as
      | { result: { content: Array<{ text: string }>; details: Record<string, unknown> }; isError: boolean }
      | undefined;
    expect(end).toBeDefined();
    expect(end!.isError).toBe(false);
    expect(end!.result.content[0]!.text).toMatch(/^JSON-CHILD\n\n\[subagent session: [0-9a-f-]{36}\]$/);
    expect(end!.result.details).toMatchObject({
      agent: "worker",
      status: "succeeded",
      exitCode: 0,
      output: "JSON-CHILD",
    });
    expect(typeof end!.result.details.durationMs).toBe("number");
  });
});

describe("synchronous dispatch in RPC mode", () => {
  it("an abort stops the child's whole tree and reports it cancelled", { tags: ["contract"] }, async () => {
    newEnv();
    const marker = join(suite.env.root, "sleep-started");
    const task = childTask("Wait.", {
      toolCalls: [{ name: "bash", arguments: { command: `touch ${marker} && sleep 300` } }],
    });
    const rpc = PiRpc.start(["-e", EXTENSION_ENTRY], { env: suite.env.env, cwd: suite.env.workDir });
    try {
      rpc.send({ id: "p1", type: "prompt", message: delegatingPrompt([{ agent: "worker", task }]) });
      // The child's bash tool has started `sleep 300` once the marker file exists; wait for its request first.
      await suite.fake.waitForRequest(isWorkerRequest, 60_000, "the child's first request");
      await waitForFile(marker, 60_000);
      rpc.send({ id: "a1", type: "abort" });
      const end = (await rpc.waitForEvent(
        (e) => e.type === "tool_execution_end" && e.toolName === "subagent",
        30_000,
        "the subagent tool to end",
      )) as { result: { content: Array<{ text: string }>; details: Record<string, unknown> }; isError: boolean };
      expect(end.isError).toBe(true);
      expect(end.result.details).toMatchObject({ status: "cancelled", stopReason: "aborted" });
      expect(end.result.content[0]!.text).toContain("Subagent worker cancelled.");
      // Only pi itself is left running: the child and its sleep are gone.
      const left = await waitForNoProcesses(suite.env.marker, 15_000, [rpc.pid!]);
      expect(left).toEqual([]);
    } finally {
      await rpc.stop();
    }
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
