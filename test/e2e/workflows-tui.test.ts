/**
 * Batches and chains in the real interactive TUI (tmux) against the scripted fake model: one receipt with the
 * workflow's id and every part's taskId, then exactly one `[subagent-result]` for the whole workflow once every
 * part has ended; per-part `/subagent-result`; cancelling one part leaves the others running; `/subagent-cancel
 * <batch id>` cancels them all; a chain's second step gets the first step's output. Skipped with a notice where
 * tmux is missing; mandatory under CI.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TRIGGER_LINE } from "../../src/delivery/envelope.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, submitWithoutCompletion, type TmuxPi } from "../harness/tmux.ts";

const isParent = (req: FakeRequest) => !isWorkerRequest(req);
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
/** Any `[subagent-result]` envelope's title: a single task's or a workflow's. */
const ANY_RESULT = /^## \[subagent-result\] /;
const WORKFLOW_RESULT = new RegExp(
  `^## \\[subagent-result\\] (batch|chain) of \\d+: .* \\((batch|chain)Id: (${UUID})\\)`,
);

const suite = useE2eSuite();

async function startTui(): Promise<TmuxPi> {
  // An envelope quotes each child's task, directive included: the parent must not act on it.
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "user" && ANY_RESULT.test(r.lastText),
    reply: { text: "noted" },
  });
  return suite.startTui();
}

/** A parent prompt whose first model call makes one subagent call with `args`, then says it waits. */
function dispatchPrompt(args: Record<string, unknown>): string {
  const first: FakeAction = { toolCalls: [{ name: "subagent", arguments: args }] };
  return `Delegate please. ${fakeDirective([first, { text: "Dispatched, waiting." }])}`;
}

const childTask = (text: string, actions: FakeAction | FakeAction[]) => `${text} ${fakeDirective(actions)}`;

/** A child that runs `sleep` in bash; the file appears once the sleep started. */
function sleepingTask(name: string): { started: string; task: string } {
  const started = join(suite.env.root, `started-${name}`);
  return {
    started,
    task: childTask(`Long job ${name}.`, {
      toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 300` } }],
    }),
  };
}

const resultMessages = (req: FakeRequest) =>
  req.messages.filter((m) => m.role === "user" && ANY_RESULT.test(messageText(m))).map(messageText);

/** The receipt the parent's model got: the workflow's id and each started part's taskId, in order. */
async function receipt(): Promise<{ text: string; id: string; parts: string[] }> {
  const after = await suite.fake.waitForRequest(
    (r) => isParent(r) && r.messages.some((m) => m.role === "tool"),
    90_000,
    "the receipt",
  );
  const text = messageText(after.messages.find((m) => m.role === "tool"));
  const id = new RegExp(`^Dispatched (?:batch|chain) of \\d+\\. (?:batch|chain)Id: (${UUID})`).exec(text)?.[1];
  expect(id, text).toBeDefined();
  const parts = [...text.matchAll(new RegExp(`taskId: (${UUID})`, "g"))].map((match) => match[1]!);
  return { text, id: id!, parts };
}

/** The parent's request carrying the workflow's envelope, and that envelope. */
async function workflowEnvelope(): Promise<string> {
  const req = await suite.fake.waitForRequest(
    (r) => isParent(r) && resultMessages(r).some((text) => WORKFLOW_RESULT.test(text)),
    120_000,
    "the workflow's result",
  );
  return resultMessages(req).find((text) => WORKFLOW_RESULT.test(text))!;
}

function record(taskId: string): Record<string, unknown> {
  return JSON.parse(
    readFileSync(join(suite.env.agentDir, "subagent-sessions", taskId, "record.json"), "utf8"),
  ) as Record<string, unknown>;
}

function outboxEntries(): string[] {
  const dir = join(suite.env.agentDir, "subagent-sessions", ".outbox");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The processes left once every child has ended, besides the TUI's own (tmux, its shell, pi): none. */
async function childrenLeft(t: TmuxPi): Promise<unknown[]> {
  return waitForNoProcesses(suite.env.marker, 20_000, await t.harnessPids(true));
}

/** Every `[subagent-result]` the parent's model ever saw, once each. */
function allEnvelopesSeen(): string[] {
  return [...new Set(suite.fake.requests.filter(isParent).flatMap(resultMessages))];
}

describe.skipIf(skipTuiTests())("a batch and a chain in the TUI", () => {
  it("a batch answers with one receipt, then exactly one envelope with every part; each part keeps its /subagent-result", {
    tags: ["tui"],
  }, async () => {
    const t = await startTui();
    const receiptSeen = () =>
      suite.fake.waitForRequest((r) => isParent(r) && r.messages.some((m) => m.role === "tool"), 90_000, "the receipt");
    // The children answer only after the parent got the receipt: a receipt never waits for its parts.
    suite.fake.on({
      when: (r) => isWorkerRequest(r) && r.lastText.includes("JOB-A"),
      reply: async () => (await receiptSeen(), { text: "RESULT-A" }),
    });
    suite.fake.on({
      when: (r) => isWorkerRequest(r) && r.lastText.includes("JOB-B"),
      reply: async () => (await receiptSeen(), { text: "RESULT-B" }),
    });
    await t.submit(
      dispatchPrompt({
        tasks: [
          { agent: "worker", task: "JOB-A" },
          { agent: "worker", task: "JOB-B" },
        ],
      }),
    );

    const { text, id, parts } = await receipt();
    expect(text.split("\n")).toEqual([
      `Dispatched batch of 2. batchId: ${id}`,
      `- 1. worker taskId: ${parts[0]}`,
      `- 2. worker taskId: ${parts[1]}`,
      "One [subagent-result] for the whole batch arrives once it has ended; each part keeps its own taskId for /subagent-result and cancel.",
    ]);

    const envelope = await workflowEnvelope();
    const lines = envelope.split("\n");
    expect(lines[0]).toBe(`## [subagent-result] batch of 2: 2 succeeded (batchId: ${id})`);
    expect(lines[2]).toBe(TRIGGER_LINE);
    expect(envelope).toContain(`### 1. worker succeeded (taskId: ${parts[0]})\n- Status: succeeded\n- Task: JOB-A\n`);
    expect(envelope).toContain(`### 2. worker succeeded (taskId: ${parts[1]})\n- Status: succeeded\n- Task: JOB-B\n`);
    expect(envelope).toContain(`- Session: ${parts[0]}`);
    expect(envelope).toContain("No other tasks were in flight when this batch ended.");
    expect(envelope.slice(envelope.indexOf("\n---\n"))).toBe(
      `\n---\n### 1. worker succeeded (taskId: ${parts[0]})\nRESULT-A\n\n### 2. worker succeeded (taskId: ${parts[1]})\nRESULT-B`,
    );
    // The person sees one card for the batch.
    await t.waitForText("batch of 2: 2 succeeded", 30_000);
    await t.waitForText("View a part's full result: /subagent-result <taskId>", 10_000);
    expect(await childrenLeft(t)).toEqual([]);
    expect(await t.quit()).toBe(0);

    // Exactly one envelope reached the model: no part arrived on its own.
    expect(allEnvelopesSeen()).toEqual([envelope]);
    for (const part of parts)
      expect(record(part)).toMatchObject({
        status: "succeeded",
        delivered: true,
        workflow: { id, kind: "batch", total: 2 },
      });
    expect(outboxEntries()).toEqual([]);
    const shown = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-result ${parts[1]}`], {
      env: suite.env.env,
      cwd: suite.env.workDir,
    });
    expect(shown.stdout).toContain("RESULT-B");
    // The batch's own id names its parts' results.
    const batch = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-result ${id}`], {
      env: suite.env.env,
      cwd: suite.env.workDir,
    });
    expect(`${batch.stdout}${batch.stderr}`).toContain(
      `${id} is a batch of 2: 2 succeeded. Each part has its own result: /subagent-result ${parts[0]} (1. worker succeeded), /subagent-result ${parts[1]} (2. worker succeeded).`,
    );
  });

  it("cancelling one part leaves the other running; the one envelope shows the cancelled part", {
    tags: ["tui"],
  }, async () => {
    const t = await startTui();
    const slow = sleepingTask("A");
    await t.submit(
      dispatchPrompt({
        tasks: [
          { agent: "worker", task: slow.task },
          { agent: "worker", task: "JOB-B" },
        ],
      }),
    );
    const { id, parts } = await receipt();
    const [a, b] = parts as [string, string];
    // B answers only once A's cancelled record exists: B ran on while A was cancelled.
    suite.fake.on({
      when: (r) => isWorkerRequest(r) && r.lastText.includes("JOB-B"),
      reply: async () => (
        await waitForFile(join(suite.env.agentDir, "subagent-sessions", a, "record.json"), 90_000), { text: "RESULT-B" }
      ),
    });
    await waitForFile(slow.started, 90_000);
    // The widget groups the batch's rows under one line.
    await t.waitForText(`┌ batch ${id.slice(-8)} · 2 parts`, 30_000);
    // pi's completion list offers the task; the command is sent as typed.
    await submitWithoutCompletion(t, `/subagent-cancel ${a}`, `${a.slice(0, 8)}…${a.slice(-8)} worker`);
    await t.waitForText(`Cancelled subagent task ${a} (worker)`, 30_000);

    const envelope = await workflowEnvelope();
    expect(envelope.split("\n")[0]).toBe(`## [subagent-result] batch of 2: 1 succeeded, 1 cancelled (batchId: ${id})`);
    expect(envelope).toContain(`### 1. worker cancelled (taskId: ${a})`);
    expect(envelope).toContain("This task was cancelled by the user (/subagent-cancel).");
    expect(envelope).toContain(`### 2. worker succeeded (taskId: ${b})`);
    expect(envelope).toContain("RESULT-B");
    expect(await childrenLeft(t)).toEqual([]);
    expect(await t.quit()).toBe(0);
    expect(allEnvelopesSeen()).toEqual([envelope]);
  });

  it("the batch id the widget shows cancels every part in flight; the card's id names the parts' results", {
    tags: ["tui"],
  }, async () => {
    const t = await startTui();
    const [first, second] = [sleepingTask("A"), sleepingTask("B")];
    await t.submit(
      dispatchPrompt({
        tasks: [
          { agent: "worker", task: first.task },
          { agent: "worker", task: second.task },
        ],
      }),
    );
    const { id, parts } = await receipt();
    await waitForFile(first.started, 90_000);
    await waitForFile(second.started, 90_000);
    // What a person reads off the widget's group line, and each part's row: ids that differ from each other.
    const widget = await t.waitForScreen(
      (screen) => /┌ batch \S+ · 2 parts/.test(screen),
      30_000,
      "the batch's group line",
    );
    const shown = /┌ batch (\S+) · 2 parts/.exec(widget)![1]!;
    expect(shown).toBe(id.slice(-8));
    for (const part of parts) expect(widget).toContain(part.slice(-8));
    // pi's completion list offers the batch for its short id; the command is sent as typed.
    await submitWithoutCompletion(t, `/subagent-cancel ${shown}`, `${id.slice(0, 8)}…${id.slice(-8)} batch of 2`);
    await t.waitForText(`Cancelled 2 parts of batch ${id}`, 30_000);
    const envelope = await workflowEnvelope();
    expect(envelope.split("\n")[0]).toBe(`## [subagent-result] batch of 2: 2 cancelled (batchId: ${id})`);
    expect(await childrenLeft(t)).toEqual([]);
    // The batch's card shows the same short id; given to /subagent-result it names each part's result.
    await t.waitForText(`batch of 2: 2 cancelled · ${shown} ·`, 30_000);
    await t.submit(`/subagent-result ${shown}`);
    await t.waitForText(`${id} is a batch of 2: 2 cancelled.`, 30_000);
    expect(await t.quit()).toBe(0);
  });

  it("a chain runs its steps in turn, the second given the first's output, and ends with one envelope", {
    tags: ["tui"],
  }, async () => {
    const t = await startTui();
    suite.fake.on({
      when: (r) => isWorkerRequest(r) && r.lastText.includes("STEP-ONE"),
      reply: { text: "FIRST-FINDING" },
    });
    suite.fake.on({
      when: (r) => isWorkerRequest(r) && r.lastText.includes("STEP-TWO"),
      reply: (r) => ({ text: r.lastText.includes("Use: FIRST-FINDING") ? "SECOND-GOT-IT" : "SECOND-MISSED-IT" }),
    });
    await t.submit(
      dispatchPrompt({
        chain: [
          { agent: "worker", task: "STEP-ONE" },
          { agent: "worker", task: "STEP-TWO. Use: {previous}" },
        ],
      }),
    );
    const { text, id, parts } = await receipt();
    expect(text.split("\n")).toEqual([
      `Dispatched chain of 2. chainId: ${id}`,
      `- Step 1. worker taskId: ${parts[0]}`,
      "- Step 2. worker: each starts once the step before succeeded.",
      "One [subagent-result] for the whole chain arrives once it has ended; each part keeps its own taskId for /subagent-result and cancel.",
    ]);
    const envelope = await workflowEnvelope();
    expect(envelope.split("\n")[0]).toBe(`## [subagent-result] chain of 2: 2 succeeded (chainId: ${id})`);
    expect(envelope).toContain("- Task: STEP-TWO. Use: FIRST-FINDING");
    expect(envelope).toMatch(/### Step 2\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nSECOND-GOT-IT$/);
    expect(await childrenLeft(t)).toEqual([]);
    expect(await t.quit()).toBe(0);
    expect(allEnvelopesSeen()).toEqual([envelope]);
    // Delivered: nothing is left in the outbox, neither the chain's entry nor its steps'.
    expect(outboxEntries()).toEqual([]);
  });
});
