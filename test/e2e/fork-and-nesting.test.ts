/**
 * `context: "fork"` and bounded nesting with the real pi and the scripted fake model (issue 11, items 1 and 3):
 * a forked child starts on the main conversation (a fact from an earlier user message reaches its first model
 * request, its system prompt is the agent's, the in-flight call is not in it) while a fresh one does not; with
 * PI_SUBAGENT_MAX_DEPTH=2 a child dispatches a grandchild whose answer comes back through it, the grandchild
 * cannot dispatch, and cancelling the child in the TUI ends the grandchild too.
 *
 * Contract tests (both pis) are tagged one by one; the others test our own logic and run on pi 1.x only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { isWorkerRequest, useE2eSuite, WORKER_BODY } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { processesWithMarker, waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const suite = useE2eSuite();
const FACT = "HERON-7731";
const ROSTER_HEADING = "## Available Subagents";

function delegatingPrompt(calls: Array<Record<string, unknown>>): string {
  const action: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Please delegate. ${fakeDirective([action])}`;
}

function printPi(args: string[], prompt: string, extraEnv: NodeJS.ProcessEnv = {}) {
  return runPi(["-e", EXTENSION_ENTRY, ...args, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    extraEnv,
    timeoutMs: 120_000,
  });
}

const textsOf = (req: FakeRequest) => req.messages.map((m) => messageText(m));
const sessionIdIn = (text: string) => /\[subagent session: ([0-9a-f-]{36})\]/.exec(text)?.[1];

function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
  } catch {
    return [];
  }
}

function records(): Array<Record<string, unknown>> {
  const dir = join(suite.env.agentDir, "subagent-sessions");
  return readdirSync(dir)
    .filter((name) => !name.startsWith("."))
    .flatMap((id) => {
      try {
        return [JSON.parse(readFileSync(join(dir, id, "record.json"), "utf8")) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

describe("context fork in print mode", () => {
  it("gives a forked child the earlier conversation and the task under the agent's system prompt and tools; a fresh child gets neither; the parent's file is only appended to by pi", {
    tags: ["contract", "slow"],
  }, async () => {
    suite.newEnv({ workerFrontmatter: "tools: read" });
    const parentFile = join(suite.env.root, "parent-session.jsonl");
    const first = await printPi(["--session", parentFile], `Remember this: the code word is ${FACT}.`);
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(parentFile, "utf8");

    let during = "";
    suite.fake.on({
      when: (req) => isWorkerRequest(req) && req.lastText.includes("Report the code word."),
      reply: () => {
        during = readFileSync(parentFile, "utf8");
        return { text: "FORK-CHILD-DONE" };
      },
      times: 1,
    });
    const forked = await printPi(
      ["--session", parentFile],
      delegatingPrompt([{ agent: "worker", context: "fork", task: "Report the code word." }]),
    );
    expect(forked.code, forked.stderr).toBe(0);
    expect(forked.stdout).toContain("FORK-CHILD-DONE");

    const child = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastText.includes("Report the code word."),
    )!;
    expect(child, "the forked child's request reached the model").toBeDefined();
    // Its first request: the earlier user message with the fact, the request that dispatched it, then the task.
    expect(child.messages.filter((m) => m.role === "assistant")).toHaveLength(1);
    expect(textsOf(child).some((text) => text.includes(`the code word is ${FACT}`))).toBe(true);
    expect(textsOf(child).some((text) => text.startsWith("Please delegate."))).toBe(true);
    expect(child.lastRole).toBe("user");
    expect(child.lastText).toContain("The conversation above is the main agent's, copied for you as context.");
    expect(child.lastText).toContain("Task: Report the code word.");
    // The call that was dispatching it is not in its history (no dangling tool call).
    expect(child.messages.some((m) => (m.tool_calls ?? []).length > 0)).toBe(false);
    // Its own system prompt: the agent's body, no roster (a child at the default limit).
    expect(child.system).toContain(WORKER_BODY);
    expect(child.system).not.toContain(ROSTER_HEADING);
    // Its own tools, not the main agent's (pi 1.x keeps the loadout in the transcript; the fork leaves it out).
    expect(child.tools).toEqual(["read"]);

    // The parent's file: what it held before the dispatch is untouched, and only pi added to it since.
    expect(during.startsWith(before)).toBe(true);
    expect(readFileSync(parentFile, "utf8").startsWith(during)).toBe(true);
    const addedDuring = during
      .slice(before.length)
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string } });
    expect(addedDuring.filter((entry) => entry.type === "message").map((entry) => entry.message!.role)).toEqual([
      "user",
      "assistant",
    ]);

    const forkId = sessionIdIn(forked.stdout)!;
    const forkRecord = records().find((record) => record["taskId"] === forkId)!;
    expect(forkRecord["origin"]).toEqual({
      depth: 1,
      maxDepth: 1,
      context: "fork",
      forkedMessages: 3,
      tools: ["read"],
    });

    // Fresh (the default): nothing of the conversation.
    const fresh = await printPi(
      ["--session", parentFile],
      delegatingPrompt([{ agent: "worker", task: "Fresh look at the code word." }]),
    );
    expect(fresh.code, fresh.stderr).toBe(0);
    const freshChild = suite.fake.requests.find((req) => isWorkerRequest(req) && req.lastText.includes("Fresh look"))!;
    expect(freshChild.messages.map(messageText).join("\n")).not.toContain(FACT);
    expect(freshChild.lastText).toBe("Task: Fresh look at the code word.");

    // Resuming the forked task works like any resume: its history (the fork included) and the new task.
    const resumed = await printPi(
      [],
      delegatingPrompt([{ agent: "worker", sessionId: forkId, task: "Say it again." }]),
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = suite.fake.requests.filter(isWorkerRequest).at(-1)!;
    expect(again.lastText).toBe("Task: Say it again.");
    expect(textsOf(again).some((text) => text.includes(FACT))).toBe(true);
    expect(textsOf(again).some((text) => text.includes("FORK-CHILD-DONE"))).toBe(true);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("refuses a fork over PI_SUBAGENT_FORK_MAX_CHARS with a clear message, and starts nothing", async () => {
    suite.newEnv();
    const result = await printPi([], delegatingPrompt([{ agent: "worker", context: "fork", task: "Anything." }]), {
      PI_SUBAGENT_FORK_MAX_CHARS: "10",
    });
    expect(result.code, result.stderr).toBe(0);
    const toolText = suite.fake.requests.at(-1)!.lastText;
    expect(toolText).toMatch(
      /^Cannot fork the conversation: it is \d+ characters, above the fork limit of 10 \(PI_SUBAGENT_FORK_MAX_CHARS/,
    );
    expect(suite.fake.requests.some(isWorkerRequest)).toBe(false);
  });
});

describe("nesting with a limit of 2 in print mode", () => {
  it("a child dispatches a grandchild whose answer reaches the main agent through it; the grandchild cannot dispatch", async () => {
    suite.newEnv();
    const grandTask = `Find the answer. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Even deeper." } }] }, { text: "GRAND-ANSWER-99" }])}`;
    const childTask = `Delegate deeper. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: grandTask } }] }, { text: "CHILD-RELAYS-GRAND-ANSWER-99" }])}`;
    const result = await printPi([], delegatingPrompt([{ agent: "worker", task: childTask }]), {
      PI_SUBAGENT_MAX_DEPTH: "2",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("CHILD-RELAYS-GRAND-ANSWER-99");

    const child = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastText.startsWith("Task: Delegate deeper."),
    )!;
    const grandchild = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastText.startsWith("Task: Find the answer."),
    )!;
    // Below the limit the child has the roster and the tool; the grandchild, at the limit, has neither (the
    // package's entry registers nothing there, however it got the package).
    expect(child.system).toContain(ROSTER_HEADING);
    expect(child.tools).toContain("subagent");
    expect(grandchild.system).not.toContain(ROSTER_HEADING);
    expect(grandchild.tools).not.toContain("subagent");
    // The grandchild's own call finds no such tool and starts nothing; its answer went back to the child as the tool result.
    const grandFollowUp = suite.fake.requests.find(
      (req) =>
        isWorkerRequest(req) &&
        req.lastRole === "tool" &&
        textsOf(req).some((text) => text.startsWith("Task: Find the answer.")),
    )!;
    expect(grandFollowUp.lastText).toContain("subagent");
    expect(suite.fake.requests.some((req) => req.lastText.startsWith("Task: Even deeper."))).toBe(false);
    const childFollowUp = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastRole === "tool" && req.lastText.includes("GRAND-ANSWER-99"),
    )!;
    expect(childFollowUp.lastText).toMatch(/GRAND-ANSWER-99\n\n\[subagent session: [0-9a-f-]{36}\]/);

    const depths = records()
      .map((record) => record["origin"])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(depths).toEqual([
      { depth: 1, maxDepth: 2, context: "fresh" },
      { depth: 2, maxDepth: 2, context: "fresh" },
    ]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("takes the limit from $maxDepth in the project's config, and keeps the subagent tool in a nested child's allowlist below the limit only", async () => {
    suite.newEnv({ workerFrontmatter: "tools: read" });
    suite.env.writeWorkFile(".pi/subagent-isolation.json", JSON.stringify({ $maxDepth: 2 }));
    const grandTask = `Leaf job. ${fakeDirective({ text: "LEAF-DONE" })}`;
    const childTask = `Middle job. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: grandTask } }] }, { text: "MIDDLE-DONE" }])}`;
    const result = await printPi([], delegatingPrompt([{ agent: "worker", task: childTask }]));
    expect(result.code, result.stderr).toBe(0);
    const child = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastText.startsWith("Task: Middle job."),
    )!;
    const grandchild = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastText.startsWith("Task: Leaf job."),
    )!;
    expect(child.tools.sort()).toEqual(["read", "subagent"]);
    expect(grandchild.tools).toEqual(["read"]);
    expect(result.stdout).toContain("MIDDLE-DONE");
  });
});

describe("nesting: shutdown ends the whole tree", () => {
  it("Ctrl+C (SIGINT) on pi -p while a grandchild runs leaves no process of the tree behind", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv();
    const started = join(suite.env.root, "grandchild-started");
    const grandTask = `Hold on. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 305` } }] })}`;
    const childTask = `Go deeper. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: grandTask } }] }])}`;
    let piPid = 0;
    const run = runPi(["-e", EXTENSION_ENTRY, "-p", delegatingPrompt([{ agent: "worker", task: childTask }])], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2" },
      timeoutMs: 120_000,
      onSpawn: (pid) => (piPid = pid),
    });
    await waitForFile(started, 90_000);
    expect(processesWithMarker(suite.env.marker).some((p) => environOf(p.pid).includes("PI_SUBAGENT_DEPTH=2"))).toBe(
      true,
    );
    process.kill(piPid, "SIGINT");
    await run;
    expect(await waitForNoProcesses(suite.env.marker, 30_000)).toEqual([]);
  });
});

describe.skipIf(skipTuiTests())("fork and nesting in the TUI", () => {
  it("a forked child in the background dispatches a grandchild; cancelling the child ends the grandchild, no orphan", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv();
    // The main agent only acknowledges the result (the envelope quotes the task and its directive).
    suite.fake.on({
      when: (r) => !isWorkerRequest(r) && r.lastRole === "user" && r.lastText.includes("[subagent-result]"),
      reply: { text: "Noted the result." },
    });
    const t = await suite.startTui({ extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2" } });
    await t.submit(`Remember this: the code word is ${FACT}. ${fakeDirective({ text: "Remembered." })}`);
    await t.waitForText("Remembered.", 60_000);

    const started = join(suite.env.root, "grandchild-started");
    const grandTask = `Hold on. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 304` } }] })}`;
    const childTask = `Go deeper. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: grandTask } }] }])}`;
    await t.submit(
      `Delegate please. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", context: "fork", task: childTask } }] }, { text: "Dispatched, waiting." }])}`,
    );
    await waitForFile(started, 120_000);

    const child = suite.fake.requests.find((req) => isWorkerRequest(req) && req.lastText.includes("Task: Go deeper."))!;
    expect(textsOf(child).some((text) => text.includes(`the code word is ${FACT}`))).toBe(true);
    // The grandchild's pi and its bash sleep run at depth 2; the child's pi at depth 1.
    const atDepth = (depth: number) =>
      processesWithMarker(suite.env.marker).filter((p) => environOf(p.pid).includes(`PI_SUBAGENT_DEPTH=${depth}`));
    expect(atDepth(2).some((p) => p.cmdline.includes("sleep 304"))).toBe(true);
    expect(atDepth(2).length).toBeGreaterThan(1);
    expect(atDepth(1).length).toBeGreaterThan(0);

    await t.submit("/subagent-cancel-all");
    await t.waitForText("Cancelled 1 running subagent task(s).", 30_000);
    const envelope = await suite.fake.waitForRequest(
      (r) =>
        !isWorkerRequest(r) &&
        r.messages.some((m) => m.role === "user" && messageText(m).includes("[subagent-result] worker cancelled")),
      90_000,
      "the cancelled envelope",
    );
    const envelopeText = envelope.messages
      .map(messageText)
      .find((text) => text.includes("[subagent-result] worker cancelled"))!;
    expect(envelopeText).toMatch(/- Depth: 1 of 2 · Context: forked \(\d+ messages of the main conversation\)/);

    // /proc emits no event when a process ends: re-checked every 100 ms.
    await vi.waitFor(
      () => {
        expect(atDepth(1), "processes at depth 1").toEqual([]);
        expect(atDepth(2), "processes at depth 2").toEqual([]);
      },
      { timeout: 30_000, interval: 100 },
    );
    // Only the TUI itself is left: the child's pi, the grandchild's pi and its sleep are all gone.
    const stay = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 30_000, stay)).toEqual([]);
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
