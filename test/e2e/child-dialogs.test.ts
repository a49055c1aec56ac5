/**
 * A subagent asks the person (issue 25), with pi's own `examples/extensions/permission-gate.ts` copied from the
 * pi under test into the test's agent dir, so both the main pi and the child (which inherits the agent dir)
 * load it. The worker has bash and runs `rm -rf <dir>`; the gate in the child asks with `ctx.ui.select`.
 * TUI (tmux): the question appears labelled with the agent and its task id; Yes removes the dir and the result
 * arrives, No keeps it and the result says the command was blocked; a question that arrives while the main agent
 * works, and then finds the person typing, waits as the widget's line without taking a key, outlives the child's
 * activity timeout, and a cancel closes it; once the editor is empty it opens. With `$askPerson: false` the question is refused and the envelope names it. A grandchild's question reaches the person through its parent, labelled with the whole path.
 * Print mode: the dir stays and the result names the unanswered question.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, PI, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, submitWithoutCompletion } from "../harness/tmux.ts";

const RESULT_TITLE = /^## \[subagent-result\] worker /;
const isParent = (req: FakeRequest) => !isWorkerRequest(req);
const resultsIn = (req: FakeRequest) => req.messages.filter((m) => m.role === "user" && RESULT_TITLE.test(messageText(m))).map(messageText);
/** The label pi's dialog and the widget line show: the agent and 8 characters of its task id. */
const ASKS = /worker ([0-9a-f]{8}) asks:/;

const suite = useE2eSuite();

/** A worker with bash, pi's permission gate in the agent dir, and a folder with a file for it to remove. */
function setUp(): string {
  const env = suite.newEnv({ workerFrontmatter: "tools: bash" });
  mkdirSync(join(env.agentDir, "extensions"), { recursive: true });
  copyFileSync(join(PI.packageRoot, "examples", "extensions", "permission-gate.ts"), join(env.agentDir, "extensions", "permission-gate.ts"));
  const dir = join(env.workDir, "build");
  mkdirSync(dir);
  writeFileSync(join(dir, "artifact.o"), "x");
  return dir;
}

const removeTask = (dir: string) => ({ agent: "worker", task: `Clean up. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `rm -rf ${dir}` } }] })}` });

function dispatchPrompt(calls: Array<Record<string, unknown>>): string {
  const first: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Delegate please. ${fakeDirective([first, { text: "DISPATCHED-WAITING" }])}`;
}

function answerResultsWithOk(): void {
  suite.fake.on({ when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText), reply: { text: "ok" } });
}

/** The child's tool result, as its model got it back (the gate's reason when it blocked). */
async function workerToolResult(): Promise<string> {
  const req = await suite.fake.waitForRequest((r) => isWorkerRequest(r) && r.lastRole === "tool", 90_000, "the worker's tool result");
  return req.lastText;
}

/**
 * The main agent's model call after its dispatch waits for the returned release: the main agent is busy (its
 * turn is open) until then, so the child's question has to wait, and the test can type meanwhile. The child is
 * not held, so nothing of it is silent but the question.
 */
function holdMainAgentUntilReleased(): () => void {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "tool",
    reply: async () => {
      await released;
      return { text: "DISPATCHED-WAITING" };
    },
    times: 1,
  });
  return release;
}

const WAITING_LINE = /\? worker [0-9a-f]{8} asks: .*rm -rf/;

describe.skipIf(skipTuiTests())("a subagent asks the person (TUI)", () => {
  it("Yes: the question names the agent, the child runs rm -rf, the dir is gone and the result arrives", async () => {
    const dir = setUp();
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([removeTask(dir)]));
    const screen = await t.waitForText(ASKS, 90_000);
    expect(screen).toContain(`rm -rf ${dir}`);
    // pi's selector starts on the first choice, "Yes".
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 1, 120_000, "the result");
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker succeeded/);
    expect(existsSync(dir)).toBe(false);
    expect(await workerToolResult()).not.toContain("Blocked");
    expect(await t.quit()).toBe(0);
  });

  it("No: the dir stays and the result says the command was blocked", async () => {
    const dir = setUp();
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([removeTask(dir)]));
    await t.waitForText(ASKS, 90_000);
    await t.press("Down");
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 1, 120_000, "the result");
    expect(resultsIn(delivered)[0]).toContain("Blocked by user");
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    expect(await t.quit()).toBe(0);
  });

  it("a question waits in the widget while the main agent works and then while the person types, takes no key, outlives the activity timeout, and a cancel closes it", async () => {
    const dir = setUp();
    answerResultsWithOk();
    const release = holdMainAgentUntilReleased();
    // Long enough for a child pi to start on a loaded machine (its start-up prints nothing).
    const activityTimeoutMs = 10_000;
    const t = await suite.startTui({ extraEnv: { PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: String(activityTimeoutMs) } });
    await t.submit(dispatchPrompt([removeTask(dir)]));
    // The question arrives while the main agent works: it waits in the widget.
    const waiting = await t.waitForText(WAITING_LINE, 90_000);
    // The draft is the start of the command the person will send: the editor is never empty, so nothing opens.
    await t.type("/subagent-cancel ");
    release();
    await t.waitForText("DISPATCHED-WAITING", 60_000);
    // The question names the task by its short id (its id's last 8 characters), which the commands take.
    const shortId = ASKS.exec(waiting)?.[1] ?? "";
    expect(shortId).toMatch(/^[0-9a-f]{8}$/);
    expect(waiting).toContain("/subagent-answer");
    const askedAt = Date.now();
    // One and a half activity timeouts pass with the child silent, waiting for the person: it is not stopped for that.
    await t.waitForScreen(() => Date.now() - askedAt > 1.5 * activityTimeoutMs, 60_000, "an activity timeout and a half");
    const later = await t.screen();
    expect(later).toMatch(WAITING_LINE);
    expect(later).not.toContain("timed out");
    // What the person typed is in the editor, whole: the question took no key.
    expect(later).toMatch(/^ ?\/subagent-cancel\s*$/m);
    // The receipt on the screen has the whole id, and pi's completion list names it: the command goes as typed.
    const taskId = /taskId: ([0-9a-f-]{36})/.exec(later)?.[1] ?? "";
    expect(taskId.endsWith(shortId)).toBe(true);
    await submitWithoutCompletion(t, shortId, `${taskId.slice(0, 8)}…${taskId.slice(-8)} worker`);
    const gone = "Question gone (the task was cancelled)";
    await t.waitForText(gone, 60_000);
    const delivered = await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 1, 120_000, "the result");
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker cancelled/);
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    // The cancelled child is gone: only the TUI's own pi, its shell and tmux remain.
    const keep = [(await t.piPid()) ?? -1, await t.shellPid(), Number((await t.tmux("display-message", "-p", "#{pid}")).trim())];
    expect(await waitForNoProcesses(suite.env.marker, 20_000, keep)).toEqual([]);
    expect(await t.quit()).toBe(0);
  });

  it("a question waiting while the person types takes no key, and opens once the editor is empty", async () => {
    const dir = setUp();
    answerResultsWithOk();
    const release = holdMainAgentUntilReleased();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([removeTask(dir)]));
    await t.waitForText(WAITING_LINE, 90_000);
    await t.type("half a thought");
    release();
    await t.waitForText("DISPATCHED-WAITING", 60_000);
    expect(await t.screen()).toMatch(WAITING_LINE);
    // Typing goes on while the question waits: every key lands in the editor.
    await t.type(" and more");
    const typing = await t.waitForText("half a thought and more", 20_000);
    expect(typing).toMatch(WAITING_LINE);
    // The person clears the editor: now the question opens (its widget line gives way to pi's dialog).
    await t.press(...Array<string>("half a thought and more".length).fill("BSpace"));
    const open = await t.waitForScreen((screen) => ASKS.test(screen) && !WAITING_LINE.test(screen), 30_000, "the question's dialog");
    expect(open).toContain(`rm -rf ${dir}`);
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 1, 120_000, "the result");
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker succeeded/);
    expect(existsSync(dir)).toBe(false);
    expect(await t.quit()).toBe(0);
  });
});

describe.skipIf(skipTuiTests())("the person chose not to be asked ($askPerson: false)", () => {
  it("the question never shows, the dir stays, and the envelope names the unanswered question", async () => {
    const dir = setUp();
    suite.env.writeAgentDirFile("subagent-isolation.json", JSON.stringify({ $askPerson: false }));
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([removeTask(dir)]));
    const delivered = await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 1, 120_000, "the result");
    const envelope = resultsIn(delivered)[0] ?? "";
    expect(envelope.split("\n")).toContain(`- asked "⚠️ Dangerous command: rm -rf ${dir} Allow?": no one to answer ($askPerson is false)`);
    expect(envelope).toContain("Blocked by user");
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    expect(await t.screen()).not.toMatch(ASKS);
    expect(await t.quit()).toBe(0);
  });
});

describe.skipIf(skipTuiTests())("a grandchild asks the person (nesting)", () => {
  it("its question travels up through its parent, labelled with the whole path, and Yes reaches it", async () => {
    const dir = setUp();
    answerResultsWithOk();
    const t = await suite.startTui({ extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2" } });
    const childTask = `Delegate deeper. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: removeTask(dir) }] }])}`;
    await t.submit(dispatchPrompt([{ agent: "worker", task: childTask }]));
    const screen = await t.waitForText(/worker [0-9a-f]{4} › worker [0-9a-f]{4} asks:/, 120_000);
    expect(screen).toContain(`rm -rf ${dir}`);
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 1, 120_000, "the result");
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker succeeded/);
    expect(existsSync(dir)).toBe(false);
    expect(await t.quit()).toBe(0);
  });
});

describe("a subagent asks where nobody can answer (print mode)", () => {
  it("the question is refused, the dir stays, and the result names the unanswered question", async () => {
    const dir = setUp();
    const run = await runPi(["-e", EXTENSION_ENTRY, "-p", dispatchPrompt([removeTask(dir)])], { env: suite.env.env, cwd: suite.env.workDir, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    const toolResult = suite.fake.requests.find((r) => isParent(r) && r.lastRole === "tool");
    expect(toolResult?.lastText).toContain(`asked "⚠️ Dangerous command: rm -rf ${dir} Allow?": no one to answer (print mode)`);
    expect(toolResult?.lastText).toContain("Blocked by user");
  });
});
