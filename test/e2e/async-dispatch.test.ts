/**
 * Asynchronous dispatch in the real interactive TUI (pi 0.73.1 in tmux) against the scripted fake model:
 * receipts at once, results delivered as `[subagent-result]` steer messages (starting a turn when idle,
 * injected into the running turn when busy), the agent's two-step cancel, and shutdown paths that leave no
 * process behind and the record on disk; the deliverable check (restate, attach, missing) and `verify` (a
 * send-back, a check that keeps failing) in the background. Skipped with a notice where tmux is missing; mandatory
 * under CI.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { TRIGGER_LINE } from "../../src/delivery/envelope.ts";
import { RESTATE_PROMPT } from "../../src/run/deliverable.ts";
import { EXTENSION_ENTRY } from "../harness/pi-env.ts";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { processesWithMarker, waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, TmuxPi } from "../harness/tmux.ts";

const isChild = isWorkerRequest;
const isParent = (req: FakeRequest) => !isChild(req);
const RESULT_TITLE =
  /^## \[subagent-result\] worker (succeeded|failed|timed out|cancelled) \(taskId: ([0-9a-f-]{36})\)/;

const suite = useE2eSuite();

async function startTui(options: Parameters<typeof suite.startTui>[0] = {}): Promise<TmuxPi> {
  // An envelope quotes the child's task, directive included: the parent must not act on that directive.
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
    reply: { text: "ok" },
  });
  return suite.startTui(options);
}

/** A parent prompt: the first model call dispatches `calls`, the next one (after the receipts) says `then`. */
function dispatchPrompt(calls: Array<Record<string, unknown>>, then = "Dispatched, waiting for results."): string {
  const first: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Delegate please. ${fakeDirective([first, { text: then }])}`;
}

function task(text: string, actions: FakeAction | FakeAction[]): string {
  return `${text} ${fakeDirective(actions)}`;
}

/** A child task whose bash tool runs `sleep 300`, and the file that appears once the sleep has started. */
function sleepingChild(): { sleeping: string; childTask: string } {
  const sleeping = join(suite.env.root, "sleep-started");
  return {
    sleeping,
    childTask: task("Long job.", {
      toolCalls: [{ name: "bash", arguments: { command: `touch ${sleeping} && sleep 300` } }],
    }),
  };
}

function resultMessages(req: FakeRequest): string[] {
  return req.messages.filter((m) => m.role === "user" && RESULT_TITLE.test(messageText(m))).map(messageText);
}

function records(agentDir: string): Array<Record<string, unknown>> {
  const dir = join(agentDir, "subagent-sessions");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, "record.json")))
    .map((name) => JSON.parse(readFileSync(join(dir, name, "record.json"), "utf8")) as Record<string, unknown>);
}

describe.skipIf(skipTuiTests())("asynchronous dispatch in the TUI", () => {
  it("answers two dispatches with receipts at once, and each result starts a turn with the exact envelope", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    // The children answer only after the parent got both receipts back: receipts never wait for children.
    const receiptsSeen = () =>
      suite.fake.waitForRequest(
        (r) => isParent(r) && r.messages.filter((m) => m.role === "tool").length === 2,
        60_000,
        "both receipts",
      );
    suite.fake.on({
      when: (r) => isChild(r) && r.lastText.includes("JOB-A"),
      reply: async () => (await receiptsSeen(), { text: "RESULT-A" }),
    });
    suite.fake.on({
      when: (r) => isChild(r) && r.lastText.includes("JOB-B"),
      reply: async () => (await receiptsSeen(), { text: "RESULT-B" }),
    });

    await t.submit(
      dispatchPrompt([
        { agent: "worker", task: "JOB-A" },
        { agent: "worker", task: "JOB-B" },
      ]),
    );
    const afterReceipts = await receiptsSeen();
    const receipts = afterReceipts.messages.filter((m) => m.role === "tool").map(messageText);
    expect(receipts).toHaveLength(2);
    for (const receipt of receipts)
      expect(receipt).toMatch(
        /^Dispatched worker\. taskId: [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );

    // Each result arrives while pi is idle and starts a turn of its own.
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 2,
      90_000,
      "both results",
    );
    const envelopes = resultMessages(delivered);
    for (const envelope of envelopes) {
      const lines = envelope.split("\n");
      expect(lines[1]).toBe("");
      expect(lines[2]).toBe(TRIGGER_LINE);
      expect(envelope).toContain("- Status: succeeded");
    }
    expect(envelopes.map((e) => e.split("---\n")[1]).sort()).toEqual(["RESULT-A", "RESULT-B"]);
    const ids = envelopes.map((e) => RESULT_TITLE.exec(e)![2]).sort();
    expect(ids).toEqual(receipts.map((r) => r.slice(-36)).sort());
    // Two separate turns: the first result's request had one envelope, the second had both.
    expect(suite.fake.requests.filter((r) => isParent(r) && resultMessages(r).length === 1)).toHaveLength(1);
    for (const record of records(suite.env.agentDir))
      expect(record).toMatchObject({ status: "succeeded", delivered: true });
    expect(await t.quit()).toBe(0);
  });

  it("asks a background child whose answer is a pointer once, and delivers the restated text with one Deliverable line", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    const restate = (r: FakeRequest) => isChild(r) && r.lastRole === "user" && r.lastText === RESTATE_PROMPT;
    suite.fake.on({ when: restate, reply: { text: "RESTATED-IN-TUI: the whole report." } });
    await t.submit(dispatchPrompt([{ agent: "worker", task: task("Report.", { text: "The full report is above." }) }]));
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      90_000,
      "the result",
    );
    const envelope = resultMessages(delivered)[0]!;
    expect(envelope).toContain(
      "\n- Deliverable: restated (its first final message was not the deliverable; asked once, it restated it)\n",
    );
    expect(envelope.split("---\n")[1]).toBe("RESTATED-IN-TUI: the whole report.");
    expect(suite.fake.requests.filter(restate)).toHaveLength(1);
    // The person's card says it in one line.
    await t.waitForText("Deliverable: restated", 30_000);
    expect(records(suite.env.agentDir)).toMatchObject([
      { status: "succeeded", deliverable: "restated", delivered: true },
    ]);
    expect(await t.quit()).toBe(0);
  });

  it("in the background too: attaches the file a pointer names, delivers a child that stays a pointer as missing, and one whose check keeps failing with its output", {
    tags: ["contract", "tui"],
  }, async () => {
    // Tall enough for the three cards at once.
    const t = await startTui({ height: 100 });
    const restateOf = (marker: string) => (r: FakeRequest) =>
      isChild(r) &&
      r.lastRole === "user" &&
      r.lastText === RESTATE_PROMPT &&
      JSON.stringify(r.messages).includes(marker);
    suite.fake.on({ when: restateOf("PART-B"), reply: { text: "See above." } });
    const sentBack = (r: FakeRequest) =>
      isChild(r) && r.lastRole === "user" && r.lastText.startsWith("The check of your work failed");
    suite.fake.on({ when: sentBack, reply: { text: "TRIED-AGAIN-C: the change is made in src/a.ts and tested." } });
    await t.submit(
      dispatchPrompt([
        {
          agent: "worker",
          task: task("Report PART-A.", [
            { toolCalls: [{ name: "write", arguments: { path: "REPORT.md", content: "REPORT-A-CONTENT\n" } }] },
            { text: "Written to REPORT.md" },
          ]),
        },
        { agent: "worker", task: task("Report PART-B.", { text: "The full report is above." }) },
        {
          agent: "worker",
          task: task("Change PART-C.", { text: "DONE-C: the change is made in src/a.ts." }),
          verify: "echo VERIFY-C-MARKER >&2; false",
        },
      ]),
    );
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 3,
      120_000,
      "the three results",
    );
    // Each envelope also lists the other tasks in flight: find it by its own task line.
    const envelopeOf = (marker: string) =>
      resultMessages(delivered).find((e) => new RegExp(`\\n- Task: \\w+ ${marker}\\.`).test(e))!;
    const attached = envelopeOf("PART-A");
    expect(attached).toContain("\n- Deliverable: attached REPORT.md");
    expect(attached.split("---\n").slice(1).join("---\n")).toContain(
      "Written to REPORT.md\n\n--- attached: REPORT.md (the file the final message pointed to) ---\n\nREPORT-A-CONTENT",
    );
    const missing = envelopeOf("PART-B");
    expect(missing).toContain("\n- Deliverable: missing: the subagent did not deliver its result in its final message");
    expect(suite.fake.requests.filter(restateOf("PART-B"))).toHaveLength(1);
    expect(suite.fake.requests.filter(restateOf("PART-A"))).toHaveLength(0);
    const failed = envelopeOf("PART-C");
    expect(failed).toContain("\n- Verify: failed after 2 rounds: echo VERIFY-C-MARKER >&2; false exited 1\n");
    expect(failed).toContain("TRIED-AGAIN-C: the change is made in src/a.ts and tested.\n\n--- verify failed: ");
    expect(failed).toContain("VERIFY-C-MARKER");
    expect(suite.fake.requests.filter(sentBack)).toHaveLength(1);
    // The person's cards say each in one line.
    await t.waitForScreen(
      (screen) =>
        screen.includes("Deliverable: attached REPORT.md") &&
        screen.includes("Deliverable: missing") &&
        screen.includes("Verify: failed after 2 rounds"),
      30_000,
      "the three cards' lines",
    );
    expect(
      records(suite.env.agentDir)
        .map(
          (record) => `${record.deliverable} · verify ${(record.verify as { passed?: boolean } | undefined)?.passed}`,
        )
        .sort(),
    ).toEqual(["attached REPORT.md · verify undefined", "missing · verify undefined", "ok · verify false"]);
    expect(await t.quit()).toBe(0);
  });

  it("sends a background child whose verify fails back with the command, and delivers it with one Verify line once the check passes", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv({ workerFrontmatter: "verify: test -f done.txt" });
    const t = await startTui();
    const sentBack = (r: FakeRequest) =>
      isChild(r) && r.lastRole === "user" && r.lastText.startsWith("The check of your work failed");
    suite.fake.on({
      when: sentBack,
      reply: { toolCalls: [{ name: "write", arguments: { path: "done.txt", content: "done\n" } }] },
    });
    suite.fake.on({
      when: (r) =>
        isChild(r) && r.lastRole === "tool" && JSON.stringify(r.messages).includes("The check of your work failed"),
      reply: { text: "FIXED-IN-TUI: the work is finished." },
    });
    await t.submit(dispatchPrompt([{ agent: "worker", task: task("Make it.", { text: "Done." }) }]));
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      90_000,
      "the result",
    );
    const envelope = resultMessages(delivered)[0]!;
    expect(envelope).toContain("\n- Verify: passed (round 2 of 2)\n");
    expect(envelope.split("---\n")[1]).toBe("FIXED-IN-TUI: the work is finished.");
    expect(suite.fake.requests.filter(sentBack)).toHaveLength(1);
    expect(suite.fake.requests.filter(sentBack)[0]!.lastText).toContain("the command `test -f done.txt` exited 1");
    // The person's card says it in one line, and /subagent-result too.
    await t.waitForText("Verify: passed (round 2 of 2)", 30_000);
    expect(records(suite.env.agentDir)).toMatchObject([
      { status: "succeeded", verify: { passed: true, rounds: 2, maxRounds: 2 }, delivered: true },
    ]);
    expect(await t.quit()).toBe(0);
  });

  it("injects a result that arrives while the main agent is busy into the same run", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    const outbox = join(suite.env.agentDir, "subagent-sessions", ".outbox");
    // The parent's second step is a bash command that waits until the child's result has been recorded, so the
    // result arrives while the parent's turn is still running.
    const waitForResult = `until ls ${outbox}/*.json >/dev/null 2>&1; do sleep 0.1; done; echo PARENT-BASH-DONE`;
    const prompt = `Delegate. ${fakeDirective([
      {
        toolCalls: [
          { name: "subagent", arguments: { agent: "worker", task: task("Quick job.", { text: "QUICK-RESULT" }) } },
        ],
      },
      { toolCalls: [{ name: "bash", arguments: { command: waitForResult } }] },
      { text: "Both done." },
    ])}`;
    await t.submit(prompt);
    const next = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      90_000,
      "the injected result",
    );
    const roles = next.messages.map((m) => m.role);
    const last = next.messages.at(-1)!;
    expect(RESULT_TITLE.test(messageText(last))).toBe(true);
    expect(messageText(last)).toContain("QUICK-RESULT");
    // Right after the bash tool's result, with no assistant answer in between: the same run.
    expect(roles.at(-2)).toBe("tool");
    expect(messageText(next.messages.at(-2))).toContain("PARENT-BASH-DONE");
    expect(roles.at(-3)).toBe("assistant");
    await t.waitForText("Both done.", 30_000);
    expect(await t.quit()).toBe(0);
  });

  it("lets the main agent cancel in two steps, killing the child's whole tree", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    const { sleeping, childTask } = sleepingChild();
    let taskId = "";
    // Parent: dispatch; after the receipt (once the child's sleep runs) ask to cancel; after the challenge
    // confirm with a reason; after the confirmation, end the turn.
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: async (r) => {
        taskId = r.lastText.slice(-36);
        await waitForFile(sleeping, 60_000);
        return { toolCalls: [{ name: "subagent", arguments: { action: "cancel", taskId } }] };
      },
      times: 1,
    });
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Confirm before cancelling."),
      reply: () => ({
        toolCalls: [
          {
            name: "subagent",
            arguments: { action: "cancel", taskId, confirm: true, reason: "the task is no longer needed" },
          },
        ],
      }),
      times: 1,
    });
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Cancel request sent"),
      reply: { text: "Cancelled it." },
    });
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: childTask } }] })}`,
    );

    const challenge = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.startsWith("Confirm before cancelling."),
      90_000,
      "the challenge",
    );
    expect(challenge.lastText).toContain(`- Task: ${taskId} (worker): Long job.`);
    const confirmation = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.startsWith("Cancel request sent"),
      60_000,
      "the confirmation",
    );
    expect(confirmation.lastText).toContain("No other tasks are in flight now.");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      60_000,
      "the cancelled result",
    );
    const envelope = resultMessages(delivered)[0]!;
    expect(envelope).toContain(`## [subagent-result] worker cancelled (taskId: ${taskId})`);
    expect(envelope).toContain(
      "This task was cancelled by the main agent via the subagent tool (action=cancel).\nCancellation reason: the task is no longer needed",
    );
    // The stop kept what the child did: no text yet, and the bash tool it ran.
    expect(envelope).toContain(
      "Partial output before it was stopped:\n(the subagent had not written any text yet)\n\nTools it ran (1):\n- bash: touch ",
    );
    // The child pi and its sleep are gone; only the TUI's own processes remain.
    const stay = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 15_000, stay)).toEqual([]);
    expect(await t.quit()).toBe(0);
  });

  it("delivers a resumed task's new result to the main agent once, even when it reads like the old one", {
    tags: ["contract", "tui"],
  }, async () => {
    suite.newEnv();
    // Both runs get the same task and give the same answer, so their envelopes read alike: only the run tells
    // the second result from a copy of the first.
    const sameTask = task("Check it.", { text: "SAME-ANSWER" });
    const isResultTurn = (r: FakeRequest) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText);
    // The first result arrives: the main agent resumes the task with that sessionId.
    suite.fake.on({
      when: isResultTurn,
      reply: (r) => ({
        toolCalls: [
          {
            name: "subagent",
            arguments: { agent: "worker", sessionId: RESULT_TITLE.exec(r.lastText)?.[2] ?? "", task: sameTask },
          },
        ],
      }),
      times: 1,
    });
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: { text: "Waiting again." },
    });
    suite.fake.on({
      when: (r) => isResultTurn(r) && resultMessages(r).length === 2,
      reply: { text: "Both runs read." },
    });
    const t = await startTui();
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: sameTask } }] })}`,
    );
    const second = await suite.fake.waitForRequest(
      (r) => isResultTurn(r) && resultMessages(r).length === 2,
      120_000,
      "the resumed run's result",
    );
    // Both envelopes are in what the model reads, each once, under the one taskId.
    const envelopes = resultMessages(second);
    expect(new Set(envelopes.map((text) => RESULT_TITLE.exec(text)?.[2])).size).toBe(1);
    for (const envelope of envelopes) expect(envelope).toContain("SAME-ANSWER");
    // The record of the second run says delivered.
    await vi.waitFor(
      () => expect(records(suite.env.agentDir)).toMatchObject([{ status: "succeeded", delivered: true }]),
      { timeout: 30_000, interval: 100 },
    );
    // The new run's card, drawn after the main agent's reply to the resume, shows its result, not a copy note.
    const screen = await t.waitForScreen(
      (now) => now.includes("Both runs read.") && now.slice(now.lastIndexOf("Waiting again.")).includes("SAME-ANSWER"),
      30_000,
      "the new run's card after the reply to the resume",
    );
    // Each result started one turn of the main agent, and none was shown to it twice.
    const parents = suite.fake.requests.filter(isParent);
    expect(parents.filter(isResultTurn)).toHaveLength(2);
    expect(Math.max(...parents.map((r) => resultMessages(r).length))).toBe(2);
    expect(screen).not.toContain("copy above");
    expect(await t.quit()).toBe(0);
  });

  it("refuses to resume a session that is still running", { tags: ["tui"] }, async () => {
    const t = await startTui();
    const { sleeping, childTask } = sleepingChild();
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: async (r) => {
        await waitForFile(sleeping, 60_000);
        return {
          toolCalls: [
            { name: "subagent", arguments: { agent: "worker", sessionId: r.lastText.slice(-36), task: "More work." } },
          ],
        };
      },
      times: 1,
    });
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "tool" && r.lastText.includes("is already running"),
      reply: { text: "Refused as expected." },
    });
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: childTask } }] })}`,
    );
    const refused = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.includes("is already running"),
      90_000,
      "the refusal",
    );
    expect(refused.lastText).toMatch(
      /^Session [0-9a-f-]{36} is already running \(agent worker, in this pi\)\. Wait for its result before resuming it/,
    );
    // Only the first child was started.
    expect(suite.fake.requests.filter(isChild)).toHaveLength(1);
    await t.waitForText("Refused as expected.", 30_000);
    expect(await t.quit()).toBe(0);
  });

  for (const how of ["/quit", "kill -TERM"] as const) {
    it(`leaves no process behind and the task's record on disk after ${how} with a child running`, {
      tags: ["contract"],
    }, async () => {
      const t = await startTui();
      const { sleeping, childTask } = sleepingChild();
      await t.submit(dispatchPrompt([{ agent: "worker", task: childTask }]));
      await waitForFile(sleeping, 90_000);
      await t.waitForText("Dispatched, waiting for results.", 30_000);
      const stay = await t.harnessPids();
      if (how === "/quit") {
        expect(await t.quit()).toBe(0);
      } else {
        process.kill((await t.piPid())!, "SIGTERM");
        await t.waitForPiExit(30_000);
      }
      expect(await waitForNoProcesses(suite.env.marker, 20_000, stay)).toEqual([]);
      const [record] = records(suite.env.agentDir);
      expect(record).toMatchObject({
        agent: "worker",
        status: "cancelled",
        stopReason: "killed_on_shutdown",
        cancelledBy: "none",
        delivered: false,
      });
      expect(processesWithMarker(suite.env.marker).some((p) => p.cmdline.includes("sleep 300"))).toBe(false);
    });
  }

  it("pi -c draws the session's subagent rows and cards as ours, then the usage footer and the commands work", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    suite.fake.on({ when: (r) => isChild(r), reply: { text: "RESUMED-RESULT-MARKER" } });
    await t.submit(dispatchPrompt([{ agent: "worker", task: "Write the resume report." }]));
    await t.waitForText("View full result: /subagent-result", 90_000);
    await t.waitForText(/^\s*ok\s*$/m, 30_000);
    expect(await t.quit()).toBe(0);
    await t.dispose();

    // pi waits only for the renderers before drawing the history; the rest of the runtime (footer, delivery,
    // command registrations, whose bodies load on first run) comes right after.
    const resumed = await suite.startTui({ args: ["-e", EXTENSION_ENTRY, "-c"] });
    // The history as ours: the tool row (name and agent, the task below) and the result card, not pi's defaults
    // (the call's JSON arguments, the envelope's raw text).
    const screen = await resumed.waitForAll(
      [
        "View full result: /subagent-result",
        /subagent worker\s*\n\s*Write the resume report\./,
        /✓ worker succeeded · [0-9a-f]{8} · /,
      ],
      30_000,
    );
    expect(screen).not.toContain("[subagent-result] worker succeeded (taskId:");
    // The rest of the runtime came right after: the session's usage in the footer, the commands.
    await resumed.waitForText(/subagents: 1 task · ↑/, 30_000);
    await resumed.submit("/subagent-result");
    await resumed.waitForText("Subagent results (newest first)", 30_000);
    await resumed.press("Escape");
    await resumed.waitForNoText("Subagent results (newest first)", 30_000);
    expect(await resumed.quit()).toBe(0);
  });

  it("delivers a result that could not be delivered once, after /reload, and never twice", {
    tags: ["contract", "tui"],
  }, async () => {
    const t = await startTui();
    const { sleeping, childTask } = sleepingChild();
    await t.submit(dispatchPrompt([{ agent: "worker", task: childTask }]));
    await waitForFile(sleeping, 90_000);
    await t.waitForText("Dispatched, waiting for results.", 30_000);
    // /reload shuts the extension down (the running child is stopped and recorded, not sent to a session that
    // is going away); the reloaded extension delivers it.
    await t.submit("/reload");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      60_000,
      "the redelivered result",
    );
    const envelope = resultMessages(delivered)[0]!;
    expect(envelope).toContain("cancelled");
    expect(envelope).toContain("terminated by session_shutdown");
    await t.waitForText(/^\s*ok\s*$/m, 30_000);
    const [record] = records(suite.env.agentDir);
    expect(record).toMatchObject({ status: "cancelled", stopReason: "killed_on_shutdown", delivered: true });
    // A second reload finds nothing left to deliver.
    const before = suite.fake.requests.length;
    const reloadDone = /^\s*ok\s*$[\s\S]*Reloaded keybindings/m;
    expect(await t.screen()).not.toMatch(reloadDone);
    await t.submit("/reload");
    // Typed while pi is still reloading, a prompt can be lost: wait until the reload is done. The first reload's
    // notice stands above the model's "ok"; the second rebuilds the chat and puts its own notice below it.
    await t.waitForText(reloadDone, 30_000);
    await t.submit(`Still there? ${fakeDirective({ text: "STILL-HERE" })}`);
    await t.waitForText("STILL-HERE", 30_000);
    const later = suite.fake.requests.slice(before);
    expect(later.filter((r) => r.lastRole === "user" && RESULT_TITLE.test(r.lastText))).toEqual([]);
    expect(suite.fake.requests.at(-1)!.messages.filter((m) => RESULT_TITLE.test(messageText(m)))).toHaveLength(1);
    expect(await t.quit()).toBe(0);
  });
});
