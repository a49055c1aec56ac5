/**
 * The person's controls in the real interactive TUI (pi 0.73.1 in tmux, scripted fake model):
 * /subagent-cancel by id prefix and through its picker, /subagent-cancel-all, /subagent-result's viewer (also
 * after pi is quit and started again on the same agent dir) and /subagent-watch's live view. Children are
 * scripted through `@fake` directives in their tasks; each long one sits in a bash `sleep` of its own length,
 * so the test can tell whose process tree is gone. Skipped with a notice where tmux is missing; mandatory
 * under CI.
 *
 * @module-tag contract
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import type { PiEnv } from "../harness/pi-env.ts";
import { processesWithMarker, waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, submitWithoutCompletion, TmuxPi } from "../harness/tmux.ts";

const isChild = isWorkerRequest;
const isParent = (req: FakeRequest) => !isChild(req);
const USER_CANCEL_BODY = "This task was cancelled by the user (/subagent-cancel).";

const suite = useE2eSuite();

function newEnv(): PiEnv {
  const env = suite.newEnv();
  // The parent only acknowledges results: an envelope quotes its task, directive included, and the fake
  // model must not act on a child's script in the parent.
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "user" && r.lastText.includes("[subagent-result]"),
    reply: { text: "Noted the result." },
  });
  return env;
}

function startTui(): Promise<TmuxPi> {
  return suite.startTui();
}

/** The parent dispatches one `subagent` call per task, then says it waits. */
function dispatchPrompt(tasks: string[]): string {
  const first: FakeAction = {
    toolCalls: tasks.map((task) => ({ name: "subagent", arguments: { agent: "worker", task } })),
  };
  return `Delegate please. ${fakeDirective([first, { text: "Dispatched, waiting for results." }])}`;
}

/** A child that touches `started` and then sleeps `seconds` in its bash tool (the length tells trees apart). */
function sleepingTask(name: string, started: string, seconds: number): string {
  return `Job ${name}. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep ${seconds}` } }] })}`;
}

/** The task ids from the receipts, in dispatch order. */
async function receiptIds(count: number): Promise<string[]> {
  const req = await suite.fake.waitForRequest(
    (r) =>
      isParent(r) &&
      r.messages.filter((m) => m.role === "tool" && messageText(m).startsWith("Dispatched worker.")).length === count,
    90_000,
    `${count} receipts`,
  );
  return req.messages.filter((m) => m.role === "tool").map((m) => messageText(m).slice(-36));
}

/** The shortest prefix (of at least 4 characters) of `id` that none of `others` starts with. */
function uniquePrefix(id: string, others: string[]): string {
  for (let length = 4; length <= id.length; length++) {
    const prefix = id.slice(0, length);
    if (!others.some((other) => other.startsWith(prefix))) return prefix;
  }
  return id;
}

/** The processes of one child's tree: its pi (whose command line names its session) and its bash and sleep. */
function treeOf(taskId: string, seconds: number) {
  return processesWithMarker(suite.env.marker).filter(
    (p) => p.cmdline.includes(taskId) || p.cmdline.includes(`sleep ${seconds}`),
  );
}

/** Waits until that tree is gone (/proc emits no event when a process ends: re-checked every 100 ms). */
async function waitForTreeGone(taskId: string, seconds: number, timeoutMs = 30_000): Promise<void> {
  await vi.waitFor(() => expect(treeOf(taskId, seconds), `the tree of ${taskId}`).toEqual([]), {
    timeout: timeoutMs,
    interval: 100,
  });
}

function envelopeFor(taskId: string) {
  return suite.fake.waitForRequest(
    (r) =>
      isParent(r) &&
      r.messages.some(
        (m) =>
          m.role === "user" && messageText(m).startsWith(`## [subagent-result] worker cancelled (taskId: ${taskId})`),
      ),
    60_000,
    `the cancelled envelope of ${taskId}`,
  );
}

/** How an id's suggestion reads in pi's completion list: its first 8 characters, its last 8 (the short id), then the agent. */
function suggestion(taskId: string): string {
  return `${taskId.slice(0, 8)}…${taskId.slice(-8)} worker`;
}

describe.skipIf(skipTuiTests())("task commands in the TUI", () => {
  it("cancels one task by id prefix, one through the picker, and the rest with cancel-all", {
    tags: ["tui"],
  }, async () => {
    newEnv();
    const t = await startTui();
    const started = ["A", "B", "C"].map((name) => join(suite.env.root, `started-${name}`));
    await t.submit(
      dispatchPrompt([
        sleepingTask("A", started[0]!, 301),
        sleepingTask("B", started[1]!, 302),
        sleepingTask("C", started[2]!, 303),
      ]),
    );
    const [idA, idB, idC] = (await receiptIds(3)) as [string, string, string];
    for (const file of started) await waitForFile(file, 90_000);
    expect(treeOf(idA, 301).length).toBeGreaterThan(0);

    // By prefix: A's tree goes, B and C keep running, the model is told it was the user.
    const prefix = uniquePrefix(idA, [idB, idC]);
    // The completion list offers the running task the prefix matches, and only that one.
    const listed = await submitWithoutCompletion(t, `/subagent-cancel ${prefix}`, suggestion(idA));
    expect(listed).not.toContain(suggestion(idB));
    await t.waitForText(`Cancelled subagent task ${idA} (worker)`, 30_000);
    await waitForTreeGone(idA, 301);
    expect(treeOf(idB, 302).length).toBeGreaterThan(0);
    expect(treeOf(idC, 303).length).toBeGreaterThan(0);
    const envelopeA = (await envelopeFor(idA)).messages
      .map(messageText)
      .find((text) => text.includes(`(taskId: ${idA})`))!;
    expect(envelopeA).toContain(USER_CANCEL_BODY);
    expect(envelopeA).toContain("do NOT re-dispatch it automatically; ask the user before dispatching it again.");

    // The picker: Esc leaves it and cancels nothing.
    await t.submit("/subagent-cancel");
    await t.waitForText("Cancel a subagent task", 30_000);
    await t.waitForText(/→ worker · running \d\d:\d\d · Job B\./, 10_000);
    await t.waitForText(/ {2}worker · running \d\d:\d\d · Job C\./, 10_000);
    await t.press("Escape");
    await t.waitForNoText("Cancel a subagent task", 10_000);
    expect(treeOf(idB, 302).length).toBeGreaterThan(0);

    // The picker again: Down, Enter cancels C.
    await t.submit("/subagent-cancel");
    await t.waitForText("Cancel a subagent task", 30_000);
    await t.press("Down");
    await t.waitForText(/→ worker · running \d\d:\d\d · Job C\./, 10_000);
    await t.press("Enter");
    await t.waitForText(`Cancelled subagent task ${idC} (worker)`, 30_000);
    await waitForTreeGone(idC, 303);
    expect(treeOf(idB, 302).length).toBeGreaterThan(0);
    await envelopeFor(idC);

    // Cancel-all stops what is left and counts it; a second one finds nothing.
    await t.submit("/subagent-cancel-all");
    await t.waitForText("Cancelled 1 running subagent task(s).", 30_000);
    await waitForTreeGone(idB, 302);
    const envelopeB = (await envelopeFor(idB)).messages
      .map(messageText)
      .find((text) => text.includes(`(taskId: ${idB})`))!;
    expect(envelopeB).toContain(USER_CANCEL_BODY);
    // Its card names the command the person used.
    await t.waitForText("Cancelled by you (/subagent-cancel-all)", 30_000);
    await t.submit("/subagent-cancel-all");
    await t.waitForText("No running subagent tasks to cancel.", 30_000);

    // Only the TUI itself is left.
    const stay = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 15_000, stay)).toEqual([]);
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("shows a finished task's full output in the viewer, also after pi is quit and started again", {
    tags: ["tui"],
  }, async () => {
    newEnv();
    const t = await startTui();
    const output = [
      "# Report",
      ...Array.from({ length: 60 }, (_, i) => `ROW-${String(i + 1).padStart(2, "0")} of the report`),
    ].join("\n\n");
    await t.submit(dispatchPrompt([`Write the report. ${fakeDirective({ text: output })}`]));
    const [id] = (await receiptIds(1)) as [string];
    await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.includes(`worker succeeded (taskId: ${id})`),
      90_000,
      "the result",
    );
    await t.waitForText("Noted the result.", 30_000);

    // By prefix; it opens at the end of the output.
    await submitWithoutCompletion(t, `/subagent-result ${id.slice(0, 13)}`, suggestion(id));
    // Until the viewer's status line is drawn: a capture mid-paint can hold its header over the conversation's lines.
    let screen = await t.waitForScreen(
      (now) => now.includes(`Subagent result · ${id}`) && /^ 88-121 of 121 · /m.test(now),
      30_000,
      "the viewer at the end of the output",
    );
    expect(screen).toMatch(/worker · succeeded · \d\d:\d\d · 1 turn\/↑\d+\/↓\d+\/\$\d+\.\d{4} · fake\/fake-model/);
    expect(screen).toContain("Task: Write the report.");
    // Rows of the output are lines of their own (the task line quotes the directive, all on one line).
    const row = (n: string) => new RegExp(`^ ROW-${n} of the report\\s*$`, "m");
    expect(screen).toMatch(row("60"));
    expect(screen).not.toMatch(row("01"));
    expect(screen).toMatch(/^ 88-121 of 121 · /m);
    // g goes to the top (the heading, rendered without its #), G back to the end.
    await t.type("g");
    // Until the repaint reached the status line: a capture mid-repaint can hold the new top and the old bottom.
    screen = await t.waitForScreen(
      (now) => row("01").test(now) && /^ 1-\d+ of 121 · /m.test(now),
      10_000,
      "the top of the output",
    );
    expect(screen).not.toMatch(row("60"));
    expect(screen).toMatch(/^ Report\s*$/m);
    await t.type("G");
    await t.waitForText(row("60"), 10_000);
    await t.type("q");
    await t.waitForNoText(`Subagent result · ${id}`, 10_000);

    // A new pi on the same agent dir: the picker lists it, Enter opens it, Esc returns to the list, q to the editor.
    expect(await t.quit()).toBe(0);
    await t.dispose();
    const again = await startTui();
    await again.submit("/subagent-result");
    await again.waitForText("Subagent results (newest first)", 30_000);
    await again.waitForText(/→ worker · succeeded · Write the report\./, 10_000);
    await again.press("Enter");
    await again.waitForText(`Subagent result · ${id}`, 30_000);
    await again.waitForText(/^ ROW-60 of the report\s*$/m, 10_000);
    await again.press("Escape");
    await again.waitForText("Subagent results (newest first)", 10_000);
    // q in the viewer closes it and the list: what the person types next is a prompt for the main agent.
    await again.press("Enter");
    await again.waitForText("Esc back to the list · q close", 30_000);
    await again.type("q");
    await again.waitForNoText(`Subagent result · ${id}`, 10_000);
    await again.submit("AFTER-THE-VIEWER: a prompt for the main agent.");
    await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.includes("AFTER-THE-VIEWER"),
      30_000,
      "the next prompt at the model",
    );
    expect(await again.quit()).toBe(0);
    await again.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("watches a running task's streamed text and tool call live, then pins the line to its result", {
    tags: ["tui"],
  }, async () => {
    newEnv();
    const t = await startTui();
    const started = join(suite.env.root, "watch-started");
    const release = join(suite.env.root, "watch-release");
    const childScript: FakeAction[] = [
      {
        text: "STREAMED-WHILE-WORKING: checking the parser first.",
        toolCalls: [
          {
            name: "bash",
            arguments: { command: `touch ${started}; while [ ! -e ${release} ]; do sleep 0.2; done; echo released` },
          },
        ],
      },
      { text: "WATCHED-FINAL-ANSWER" },
    ];
    await t.submit(dispatchPrompt([`Check the parser. ${fakeDirective(childScript)}`]));
    const [id] = (await receiptIds(1)) as [string];
    await waitForFile(started, 90_000);

    // No id: the picker of running tasks, Enter opens the live view.
    await t.submit("/subagent-watch");
    // The picker's title on a line of its own: the command's completion, on screen until the editor redraws, begins
    // with the same words, and an Enter sent on seeing it reached the editor before the picker opened (under load).
    await t.waitForText(/^\s*Watch a running subagent task\s*$/m, 30_000);
    await t.press("Enter");
    await t.waitForText(`Watching subagent · ${id}`, 30_000);
    await t.waitForAll(
      [
        "STREAMED-WHILE-WORKING: checking the parser first.",
        /\+\d\d:\d\d ▸ bash: touch /,
        /worker · running · tool bash · \d\d:\d\d/,
        "live · refreshed every second",
      ],
      10_000,
    );

    // The task ends: the view pins the line to its result and stays open.
    writeFileSync(release, "");
    const screen = await t.waitForAll(
      [`Task ended (succeeded). Full result: /subagent-result ${id}`, `Watching subagent · ${id}`],
      60_000,
    );
    expect(screen).not.toContain("live · refreshed every second");
    await t.type("q");
    await t.waitForNoText(`Watching subagent · ${id}`, 10_000);
    // Nothing else runs now, so the picker is not shown again.
    await t.submit("/subagent-watch");
    await t.waitForText("No running subagent tasks to watch.", 30_000);
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
