/**
 * A subagent asks the person (issue 25), with pi's own `examples/extensions/permission-gate.ts` copied from the
 * pi under test into the test's agent dir, so both the main pi and the child (which inherits the agent dir)
 * load it. The worker has bash and runs `rm -rf <dir>`; the gate in the child asks with `ctx.ui.select`.
 * TUI (tmux): the question appears labelled with the agent and its task id; Yes removes the dir and the result
 * arrives, No keeps it and the result says the command was blocked; a question that arrives while the main agent
 * works, and then finds the person typing, waits as the widget's line without taking a key, outlives the child's
 * activity timeout, and a cancel closes it; once the editor is empty it opens. With `$askPerson: false` the question is refused and the envelope names it. A grandchild's question reaches the person through its parent, labelled with the whole path.
 * Attacks (issue 34), each failing before its fix: keys typed right after answering No go to the editor, not
 * into the next question (its folder survives); a hostile child extension (test/e2e/fixtures/hostile-asker.ts)
 * whose editor prefill would set the title, the clipboard and clear the screen does none of it; one at the depth
 * limit cannot add a hop to its label; one asking 200 questions at once gets 3 waiting, the rest refused and
 * counted in one line, its confirm opening on No, and one `/subagent-answer refuse` ends its queue.
 * Print mode: the dir stays and the result names the unanswered question.
 *
 * Contract tests (both pis) are tagged one by one; the others test our own logic and run on pi 1.x only.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, REPO_ROOT, runPi, withPermissionGate } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, submitWithoutCompletion } from "../harness/tmux.ts";
import { HOSTILE_TITLE } from "./fixtures/hostile-asker.ts";

const RESULT_TITLE = /^## \[subagent-result\] worker /;
const isParent = (req: FakeRequest) => !isWorkerRequest(req);
const resultsIn = (req: FakeRequest) =>
  req.messages.filter((m) => m.role === "user" && RESULT_TITLE.test(messageText(m))).map(messageText);
/** The label pi's dialog and the widget line show: the agent and 8 characters of its task id. */
const ASKS = /worker ([0-9a-f]{8}) asks:/;

const suite = useE2eSuite();

/** A worker with bash, pi's permission gate in the agent dir, and a folder with a file for it to remove. */
function setUp(): string {
  return withPermissionGate(suite.newEnv({ workerFrontmatter: "tools: bash" }));
}

/** The folders a test's workers remove, by name in the work dir (so the question's line stays short). */
function setUpDirs(names: readonly string[]): string[] {
  setUp();
  return names.map((name) => {
    const dir = join(suite.env.workDir, name);
    mkdirSync(dir);
    writeFileSync(join(dir, "artifact.o"), "x");
    return dir;
  });
}

/** A worker asked to run `rm -rf <name>` in its work dir. */
const removeNamed = (name: string) => ({
  agent: "worker",
  task: `Clean up. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `rm -rf ${name}` } }] })}`,
});

/** pi's gate dialog on the screen (not the widget's one-line form): the folder it asks to remove. */
const OPEN_GATE = /Dangerous command:[ \t]*\n(?:[ \t]*\n)*[ \t]+rm -rf (junk-[ab])/;

const removeTask = (dir: string) => ({
  agent: "worker",
  task: `Clean up. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `rm -rf ${dir}` } }] })}`,
});

function dispatchPrompt(calls: Array<Record<string, unknown>>): string {
  const first: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Delegate please. ${fakeDirective([first, { text: "DISPATCHED-WAITING" }])}`;
}

function answerResultsWithOk(): void {
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
    reply: { text: "ok" },
  });
}

/** The child's tool result, as its model got it back (the gate's reason when it blocked). */
async function workerToolResult(): Promise<string> {
  const req = await suite.fake.waitForRequest(
    (r) => isWorkerRequest(r) && r.lastRole === "tool",
    90_000,
    "the worker's tool result",
  );
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
  it("Yes: the question names the agent, the child runs rm -rf, the dir is gone and the result arrives", {
    tags: ["contract", "tui"],
  }, async () => {
    const dir = setUp();
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([removeTask(dir)]));
    await t.waitForAll([ASKS, `rm -rf ${dir}`], 90_000);
    // pi's selector starts on the first choice, "Yes".
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker succeeded/);
    expect(existsSync(dir)).toBe(false);
    expect(await workerToolResult()).not.toContain("Blocked");
    expect(await t.quit()).toBe(0);
  });

  it("No: the dir stays and the result says the command was blocked", { tags: ["contract", "tui"] }, async () => {
    const dir = setUp();
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([removeTask(dir)]));
    await t.waitForText(ASKS, 90_000);
    await t.press("Down");
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    expect(resultsIn(delivered)[0]).toContain("Blocked by user");
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    expect(await t.quit()).toBe(0);
  });

  it("a question waits in the widget while the main agent works and then while the person types, takes no key, outlives the activity timeout, and a cancel closes it", {
    tags: ["tui", "slow"],
  }, async () => {
    const dir = setUp();
    answerResultsWithOk();
    const release = holdMainAgentUntilReleased();
    // The quiet time counts from the child's first output, so its silent start needs no margin here.
    const activityTimeoutMs = 4000;
    const t = await suite.startTui({ extraEnv: { PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: String(activityTimeoutMs) } });
    await t.submit(dispatchPrompt([removeTask(dir)]));
    // The question arrives while the main agent works: it waits in the widget.
    const waiting = await t.waitForAll([WAITING_LINE, "/subagent-answer"], 90_000);
    // The draft is the start of the command the person will send: the editor is never empty, so nothing opens.
    await t.type("/subagent-cancel ");
    release();
    await t.waitForText("DISPATCHED-WAITING", 60_000);
    // The question names the task by its short id (its id's last 8 characters), which the commands take.
    const shortId = ASKS.exec(waiting)?.[1] ?? "";
    expect(shortId).toMatch(/^[0-9a-f]{8}$/);
    const askedAt = Date.now();
    // One and a half activity timeouts pass with the child silent, waiting for the person: it is not stopped for that.
    // Not a wait for an event: time must pass to show that nothing happens; the screen must say so all along.
    await t.waitForScreen(
      (screen) => {
        expect(screen, "the child timed out while it waited for the person").not.toContain("timed out");
        return Date.now() - askedAt > 1.5 * activityTimeoutMs;
      },
      60_000,
      "an activity timeout and a half",
    );
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
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker cancelled/);
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    // The cancelled child is gone: only the TUI's own pi, its shell and tmux remain.
    const keep = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 20_000, keep)).toEqual([]);
    expect(await t.quit()).toBe(0);
  });

  it("a question waiting while the person types takes no key, and opens once the editor is empty", {
    tags: ["tui"],
  }, async () => {
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
    await t.waitForAll(["half a thought and more", WAITING_LINE], 20_000);
    // The person clears the editor: now the question opens (its widget line gives way to pi's dialog).
    await t.press(...Array<string>("half a thought and more".length).fill("BSpace"));
    await t.waitForScreen(
      (screen) => ASKS.test(screen) && screen.includes(`rm -rf ${dir}`) && !WAITING_LINE.test(screen),
      30_000,
      "the question's dialog",
    );
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker succeeded/);
    expect(existsSync(dir)).toBe(false);
    expect(await t.quit()).toBe(0);
  });
});

describe.skipIf(skipTuiTests())("no keystroke answers a question the person did not see (issue 34)", () => {
  it("keys typed right after answering No go to the editor, not into the next question: the other folder survives", {
    tags: ["tui"],
  }, async () => {
    const [a, b] = setUpDirs(["junk-a", "junk-b"]);
    answerResultsWithOk();
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "user" && r.lastText === "thanks",
      reply: { text: "YOU-ARE-WELCOME" },
    });
    const release = holdMainAgentUntilReleased();
    const t = await suite.startTui({ width: 160 });
    await t.submit(dispatchPrompt([removeNamed("junk-a"), removeNamed("junk-b")]));
    // Both questions are queued (the main agent works, so they wait in the widget): then it goes idle.
    await t.waitForText(/\? worker [0-9a-f]{8} asks: .*rm -rf junk-[ab] Allow\? \(\+1 more\)/, 120_000);
    release();
    const first = await t.waitForScreen((screen) => OPEN_GATE.test(screen), 60_000, "the first question's dialog");
    const firstName = OPEN_GATE.exec(first)?.[1];
    const secondName = firstName === "junk-a" ? "junk-b" : "junk-a";
    // No to the first, then at once what the person meant for the main agent.
    await t.press("Down", "Enter");
    await t.type("thanks");
    await t.press("Enter");
    // "thanks" reached the main agent as the person's message: it was typed into the editor, not the question.
    await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastRole === "user" && r.lastText === "thanks",
      60_000,
      "the person's thanks",
    );
    await t.waitForText("YOU-ARE-WELCOME", 60_000);
    const second = await t.waitForScreen(
      (screen) => OPEN_GATE.exec(screen)?.[1] === secondName,
      60_000,
      "the second question's dialog",
    );
    expect(second).toMatch(ASKS);
    expect(existsSync(join(suite.env.workDir, secondName, "artifact.o"))).toBe(true);
    await t.press("Escape");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 2,
      120_000,
      "both results",
    );
    for (const envelope of resultsIn(delivered)) expect(envelope).toContain("Blocked by user");
    expect(existsSync(join(a ?? "", "artifact.o"))).toBe(true);
    expect(existsSync(join(b ?? "", "artifact.o"))).toBe(true);
    expect(await t.quit()).toBe(0);
  });
});

/** A worker whose child also loads the hostile extension (test/e2e/fixtures/hostile-asker.ts); `word` triggers it. */
function setUpHostile(): void {
  setUp();
  copyFileSync(
    join(REPO_ROOT, "test", "e2e", "fixtures", "hostile-asker.ts"),
    join(suite.env.agentDir, "extensions", "hostile-asker.ts"),
  );
}

const hostileTask = (word: string) => ({
  agent: "worker",
  task: `Go. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `echo ${word}` } }] })}`,
});

describe.skipIf(skipTuiTests())("a hostile child's questions (issue 34)", () => {
  it("an editor prefill with title, clipboard and clear-screen sequences reaches the screen as plain text, with none of their effects", {
    tags: ["contract", "tui"],
  }, async () => {
    setUpHostile();
    answerResultsWithOk();
    const t = await suite.startTui();
    // tmux takes an application's OSC 52 into its paste buffers only with set-clipboard on: so the attack can show.
    await t.tmux("set-option", "-s", "set-clipboard", "on");
    const titleBefore = (await t.tmux("display-message", "-p", "#{pane_title}")).trim();
    await t.submit(dispatchPrompt([hostileTask("HOSTILE-PREFILL")]));
    // The prefill's text, whole and in place: nothing moved the cursor or cleared the screen between its parts.
    await t.waitForAll(["Edit the note", ASKS, "note-startnote-end", "Delegate please."], 90_000);
    // pi itself may set its title after the first screen (pi 1.x: `π - <folder>`), so only the child's title is
    // looked for: it never reaches the terminal.
    expect((await t.tmux("display-message", "-p", "#{pane_title}")).trim()).not.toContain(HOSTILE_TITLE);
    expect(titleBefore).not.toContain(HOSTILE_TITLE);
    expect((await t.tmux("list-buffers", "-F", "#{buffer_sample}")).trim()).toBe("");
    await t.press("Escape");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    expect(resultsIn(delivered)[0]).toContain("editor gave undefined");
    expect(await t.quit()).toBe(0);
  });

  it("a child at the depth limit cannot add a hop to its question's label", { tags: ["tui"] }, async () => {
    setUpHostile();
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([hostileTask("FORGED-HOP")]));
    // The label is the parent's: the worker alone, not "worker … › reviewer 01a2 asks:".
    const screen = await t.waitForAll(["Allow FORGED-HOP?", ASKS], 90_000);
    expect(screen).not.toMatch(/›\s*reviewer/);
    await t.press("Down", "Enter");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    expect(resultsIn(delivered)[0]).toMatch(/select gave \\?"No\\?"/);
    expect(await t.quit()).toBe(0);
  });

  it("200 questions at once: 3 wait, the rest are refused and counted in one line, a confirm opens on No, and one command refuses the task's queue", {
    tags: ["tui"],
  }, async () => {
    setUpHostile();
    answerResultsWithOk();
    // A pause between questions long enough for a loaded machine: the test types in it only once Esc has closed the
    // dialog (an Esc sent together with the next keys reads as Alt+key), and the default second is too short for that.
    const t = await suite.startTui({ width: 160, extraEnv: { PI_SUBAGENT_QUESTION_PAUSE_MS: "20000" } });
    await t.submit(dispatchPrompt([hostileTask("QUESTION-FLOOD")]));
    // A child's confirm opens on No: Enter alone never says Yes.
    await t.waitForAll(
      ["Flood question 0?", "has 3 questions waiting: its next ones are refused (cancelled).", /→ No\s*\n\s*Yes/],
      90_000,
    );
    await t.press("Escape");
    await t.waitForNoText("Flood question 0?", 30_000);
    // The person types a command in the pause after a question: it lands in the editor, and the queue waits.
    await t.type("/subagent-answer refuse");
    // The widget line and the typed text are drawn independently: wait for a screen with both.
    const waitingLine =
      /\? worker [0-9a-f]{8} asks: Flood question 1\? Allow\? \(\+1 more\) · 197 more questions from worker refused · \/subagent-answer/;
    const waiting = await t.waitForScreen(
      (screen) => waitingLine.test(screen) && /^ ?\/subagent-answer refuse\s*$/m.test(screen),
      30_000,
      "the waiting line and the typed command",
    );
    expect(waiting).toMatch(waitingLine);
    await t.press("Enter");
    await t.waitForText(/Refused 2 questions of worker [0-9a-f]{8} \(answered cancelled\); the task goes on\./, 30_000);
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    const envelope = resultsIn(delivered)[0] ?? "";
    expect(envelope).toContain("flood answered yes 0 times");
    expect(envelope.split("\n")).toContain(
      '- asked "Flood question 3? Allow?": no one to answer (too many questions waiting)',
    );
    expect(envelope).toContain("… and 187 more questions nobody could answer");
    expect(await t.quit()).toBe(0);
  });
});

describe.skipIf(skipTuiTests())("the person chose not to be asked ($askPerson: false)", () => {
  it("the question never shows, the dir stays, and the envelope names the unanswered question", {
    tags: ["tui"],
  }, async () => {
    const dir = setUp();
    suite.env.writeAgentDirFile("subagent-isolation.json", JSON.stringify({ $askPerson: false }));
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([removeTask(dir)]));
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    const envelope = resultsIn(delivered)[0] ?? "";
    expect(envelope.split("\n")).toContain(
      `- asked "⚠️ Dangerous command: rm -rf ${dir} Allow?": no one to answer ($askPerson is false)`,
    );
    expect(envelope).toContain("Blocked by user");
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    expect(await t.screen()).not.toMatch(ASKS);
    expect(await t.quit()).toBe(0);
  });
});

describe.skipIf(skipTuiTests())("a grandchild asks the person (nesting)", () => {
  it("its question travels up through its parent, labelled with the whole path, and Yes reaches it", {
    tags: ["contract", "tui"],
  }, async () => {
    const dir = setUp();
    answerResultsWithOk();
    const t = await suite.startTui({ extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2" } });
    const childTask = `Delegate deeper. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: removeTask(dir) }] }])}`;
    await t.submit(dispatchPrompt([{ agent: "worker", task: childTask }]));
    await t.waitForAll([/worker [0-9a-f]{4} › worker [0-9a-f]{4} asks:/, `rm -rf ${dir}`], 120_000);
    await t.press("Enter");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the result",
    );
    expect(resultsIn(delivered)[0]).toMatch(/^## \[subagent-result\] worker succeeded/);
    expect(existsSync(dir)).toBe(false);
    expect(await t.quit()).toBe(0);
  });
});

describe("a subagent asks where nobody can answer (print mode)", () => {
  it("the question is refused, the dir stays, and the result names the unanswered question", async () => {
    const dir = setUp();
    const run = await runPi(["-e", EXTENSION_ENTRY, "-p", dispatchPrompt([removeTask(dir)])], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "artifact.o"))).toBe(true);
    const toolResult = suite.fake.requests.find((r) => isParent(r) && r.lastRole === "tool");
    expect(toolResult?.lastText).toContain(
      `asked "⚠️ Dangerous command: rm -rf ${dir} Allow?": no one to answer (print mode)`,
    );
    expect(toolResult?.lastText).toContain("Blocked by user");
  });
});
