/**
 * Live subagents in the real TUI (pi 0.73.1 in tmux, RPC children) against the scripted fake model: a message
 * from the main agent (`action: "message"`) or the person (`/subagent-message`) reaches a busy child at its next
 * step, and a cancelled child keeps the text it wrote and the tools it ran. Skipped where tmux is missing.
 *
 * Contract tests (both pis) are tagged one by one; the others test our own logic and run on pi 1.x only.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, type TmuxPi } from "../harness/tmux.ts";

const isChild = isWorkerRequest;
const isParent = (req: FakeRequest) => !isChild(req);
const RESULT_TITLE =
  /^## \[subagent-result\] worker (succeeded|failed|timed out|cancelled) \(taskId: ([0-9a-f-]{36})\)/;
const MESSAGE_MARK = "[Message from the main agent (the agent that dispatched you), sent while you were working]";
const USER_MARK = "[Message from the user, via the main agent's session, sent while you were working]";

const suite = useE2eSuite();

function resultMessages(req: FakeRequest): string[] {
  return req.messages.filter((m) => m.role === "user" && RESULT_TITLE.test(messageText(m))).map(messageText);
}

/**
 * The child's script: its first step says some text and runs a bash command that waits for a release file;
 * a step whose conversation carries a message answers with what it was told.
 */
function busyChild(): { started: string; release: string } {
  const started = join(suite.env.root, "child-started");
  const release = join(suite.env.root, "child-release");
  suite.fake.on({
    when: (r) => isChild(r) && !r.messages.some((m) => m.role === "assistant"),
    reply: {
      text: "Looked at the first file.",
      toolCalls: [
        {
          name: "bash",
          arguments: { command: `touch ${started}; while [ ! -f ${release} ]; do sleep 0.1; done; echo WAITED` },
        },
      ],
    },
  });
  suite.fake.on({
    when: (r) => isChild(r) && r.messages.some((m) => m.role === "user" && messageText(m).startsWith("[Message from")),
    reply: (r) => {
      const told = r.messages
        .filter((m) => m.role === "user" && messageText(m).startsWith("[Message from"))
        .map(messageText);
      return { text: `ACTED-ON: ${told.map((t) => t.split("\n").slice(1).join(" ")).join(" | ")}` };
    },
  });
  return { started, release };
}

async function startTui(): Promise<TmuxPi> {
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
    reply: { text: "Result digested." },
  });
  return suite.startTui();
}

function recordOf(taskId: string): Record<string, unknown> {
  return JSON.parse(
    readFileSync(join(suite.env.agentDir, "subagent-sessions", taskId, "record.json"), "utf8"),
  ) as Record<string, unknown>;
}

describe.skipIf(skipTuiTests())("live subagents in the TUI", () => {
  it("action=message reaches a child busy in bash at its next request, and its result shows it acted on it", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    const { started, release } = busyChild();
    let taskId = "";
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: async (r) => {
        taskId = r.lastText.slice(-36);
        await waitForFile(started, 60_000);
        return {
          toolCalls: [{ name: "subagent", arguments: { action: "message", taskId, message: "Also mention BANANA." } }],
        };
      },
      times: 1,
    });
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Message sent to"),
      reply: { text: "Told it." },
    });
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Long job." } }] })}`,
    );

    const acked = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.startsWith("Message sent to"),
      90_000,
      "the acknowledgement",
    );
    expect(acked.lastText).toBe(
      `Message sent to ${taskId} (worker); it reaches the subagent before its next model call.`,
    );
    writeFileSync(release, "");
    const childNext = await suite.fake.waitForRequest(
      (r) => isChild(r) && r.messages.some((m) => messageText(m).startsWith(MESSAGE_MARK)),
      60_000,
      "the child's next request",
    );
    expect(childNext.messages.at(-1)!.role).toBe("user");
    expect(messageText(childNext.messages.at(-1))).toBe(`${MESSAGE_MARK}\nAlso mention BANANA.`);
    expect(childNext.messages.some((m) => m.role === "tool" && messageText(m).includes("WAITED"))).toBe(true);

    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      90_000,
      "the result",
    );
    const envelope = resultMessages(delivered)[0]!;
    expect(envelope).toContain("- Status: succeeded");
    expect(envelope.split("---\n")[1]).toBe("ACTED-ON: Also mention BANANA.");
    expect(recordOf(taskId).messages).toEqual([
      { at: expect.any(Number), from: "agent", text: "Also mention BANANA.", delivery: "steer" },
    ]);
    expect(await t.quit()).toBe(0);
  });

  it("a burst of 25 action=message calls: 20 reach the child coalesced (3 child model calls in all, not 21), 5 are refused", {
    tags: ["tui"],
  }, async () => {
    const t = await startTui();
    const { started, release } = busyChild();
    const burst = Array.from({ length: 25 }, (_, index) => `Note ${index + 1}.`);
    let taskId = "";
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: async (r) => {
        taskId = r.lastText.slice(-36);
        await waitForFile(started, 60_000);
        return {
          toolCalls: burst.map((message) => ({ name: "subagent", arguments: { action: "message", taskId, message } })),
        };
      },
      times: 1,
    });
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && !r.lastText.startsWith("Dispatched worker."),
      reply: { text: "Told it." },
      times: 1,
    });
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Long job." } }] })}`,
    );

    const answered = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastRole === "tool" && !r.lastText.startsWith("Dispatched worker."),
      90_000,
      "the burst's results",
    );
    const results = answered.messages.filter((m) => m.role === "tool").map(messageText);
    expect(results.filter((text) => text.startsWith("Message sent to"))).toHaveLength(20);
    const refusals = results.filter((text) => text.includes("has already received 20 messages from you"));
    expect(refusals).toHaveLength(5);
    expect(refusals[0]).toBe(
      `Task ${taskId} (worker) has already received 20 messages from you, the most one task takes; this one was not sent. Wait for its result, which arrives by itself, or cancel it (action="cancel") and dispatch again with everything it needs in the task.`,
    );
    writeFileSync(release, "");

    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      90_000,
      "the result",
    );
    expect(resultMessages(delivered)[0]).toContain("- Status: succeeded");
    const childCalls = suite.fake.requests.filter(isChild);
    expect(childCalls.length, "child model calls").toBeLessThanOrEqual(3);
    // Every message reached the child once, in the order they were sent.
    const told = childCalls
      .at(-1)!
      .messages.filter((m) => m.role === "user" && messageText(m).startsWith(MESSAGE_MARK))
      .map(messageText)
      .join("\n");
    expect([...told.matchAll(/Note (\d+)\./g)].map((match) => Number(match[1]))).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 1),
    );
    expect((recordOf(taskId).messages as unknown[]).length).toBe(20);
    expect(await t.quit()).toBe(0);
  });

  it("/subagent-message with a 13-character id prefix reaches the child, marked as the user's", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    const { started, release } = busyChild();
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: { text: "Dispatched." },
      times: 1,
    });
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Long job." } }] })}`,
    );
    const receipt = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.startsWith("Dispatched worker."),
      90_000,
      "the receipt",
    );
    const taskId = receipt.lastText.slice(-36);
    await waitForFile(started, 60_000);
    await t.waitForText("Dispatched.", 30_000);
    await t.submit(`/subagent-message ${taskId.slice(0, 13)} Use metric units.`);
    await t.waitForText("Message sent to subagent task", 30_000);
    writeFileSync(release, "");
    const childNext = await suite.fake.waitForRequest(
      (r) => isChild(r) && r.messages.some((m) => messageText(m).startsWith(USER_MARK)),
      60_000,
      "the child's next request",
    );
    expect(messageText(childNext.messages.at(-1))).toBe(`${USER_MARK}\nUse metric units.`);
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      90_000,
      "the result",
    );
    expect(resultMessages(delivered)[0]!.split("---\n")[1]).toBe("ACTED-ON: Use metric units.");
    expect(recordOf(taskId).messages).toEqual([
      { at: expect.any(Number), from: "user", text: "Use metric units.", delivery: "steer" },
    ]);
    expect(await t.quit()).toBe(0);
  });

  it("/subagent-cancel of a child that wrote text and then started a long tool keeps that text, and leaves no process", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    const { started } = busyChild();
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: { text: "Dispatched." },
      times: 1,
    });
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Long job." } }] })}`,
    );
    const receipt = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.startsWith("Dispatched worker."),
      90_000,
      "the receipt",
    );
    const taskId = receipt.lastText.slice(-36);
    await waitForFile(started, 60_000);
    await t.waitForText("Dispatched.", 30_000);
    // pi offers the matching id as soon as the prefix is typed and Enter would accept it: close the list first.
    await t.type(`/subagent-cancel ${taskId.slice(0, 13)}`);
    await t.waitForText(`${taskId.slice(0, 8)}…${taskId.slice(-8)} worker`, 15_000);
    await t.press("Escape");
    await t.waitForNoText(`${taskId.slice(0, 8)}…${taskId.slice(-8)} worker`, 10_000);
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      60_000,
      "the cancelled result",
    );
    const envelope = resultMessages(delivered)[0]!;
    expect(envelope).toContain(`## [subagent-result] worker cancelled (taskId: ${taskId})`);
    expect(envelope).toContain(
      "Partial output before it was stopped:\nLooked at the first file.\n\nTools it ran (1):\n- bash: touch ",
    );
    expect(recordOf(taskId)).toMatchObject({
      status: "cancelled",
      cancelledBy: "user",
      output: "Looked at the first file.",
    });
    const stay = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 15_000, stay)).toEqual([]);
    expect(existsSync(started)).toBe(true);
    expect(await t.quit()).toBe(0);
  });
});

describe("live children in print mode", () => {
  const printPi = (prompt: string, extraEnv: NodeJS.ProcessEnv = {}) =>
    runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 120_000,
      extraEnv,
    });

  it("an activity timeout keeps the child's text and the tools it ran under the partial-output heading; no process is left", async () => {
    suite.newEnv();
    const started = join(suite.env.root, "sleep-started");
    suite.fake.on({
      when: (r) => isChild(r) && !r.messages.some((m) => m.role === "assistant"),
      reply: {
        text: "Halfway there: 2 of 4 files read.",
        toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 300` } }],
      },
    });
    const result = await printPi(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Slow job." } }] })}`,
      {
        // The quiet time counts from the child's first output: no margin for its start is needed.
        PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: "4000",
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(started)).toBe(true);
    const toolText = suite.fake.requests.filter(isParent).at(-1)!.lastText;
    expect(toolText).toContain("Subagent worker timed out.");
    expect(toolText).toContain(
      "Partial output before it was stopped:\nHalfway there: 2 of 4 files read.\n\nTools it ran (1):\n- bash: touch ",
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("a 200 KiB task reaches the child whole (no E2BIG); the JSON fallback still delegates as before", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv();
    const big = `BIG-TASK ${"x".repeat(200 * 1024)}`;
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "user" && r.lastText.includes("GO-BIG"),
      reply: { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: big } }] },
    });
    suite.fake.on({
      when: (r) => isChild(r) && r.lastRole === "user",
      reply: (r) => ({ text: `CHILD-GOT ${r.lastText.length} chars` }),
    });
    const result = await printPi("GO-BIG");
    expect(result.code, result.stderr).toBe(0);
    const toolText = suite.fake.requests.filter(isParent).at(-1)!.lastText;
    expect(toolText).toContain(`CHILD-GOT ${"Task: ".length + big.length} chars`);

    const fallback = await printPi(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "Small job." } }] })}`,
      {
        PI_SUBAGENT_CHILD_MODE: "json",
      },
    );
    expect(fallback.code, fallback.stderr).toBe(0);
    expect(suite.fake.requests.filter(isParent).at(-1)!.lastText).toMatch(
      /^CHILD-GOT 16 chars\n\n\[subagent session: [0-9a-f-]{36}\]$/,
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
