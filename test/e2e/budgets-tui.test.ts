/**
 * Budgets, the ledger and the fan-out gate in the interactive TUI (tmux) with the real pi and the fake model:
 * the widget shows use against a turn budget and the stopped task's envelope names the budget; three results'
 * usage shows in the footer and /subagent-usage, unchanged after /reload; past the fan-out cap the person is
 * asked, and a yes dispatches the rest.
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { delegateKnownTasks, KNOWN_TOTAL_LINE, loopingTask } from "../harness/budget-fixtures.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const RESULT_TITLE = /^## \[subagent-result\] worker /;
const isParent = (req: FakeRequest) => !isWorkerRequest(req);
/** pi's notice once a /reload is done (both pis). */
const RELOADED = "Reloaded keybindings";
const resultsIn = (req: FakeRequest) =>
  req.messages.filter((m) => m.role === "user" && RESULT_TITLE.test(messageText(m))).map(messageText);

const suite = useE2eSuite();

function answerResultsWithOk(): void {
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
    reply: { text: "ok" },
  });
}

function dispatchPrompt(calls: Array<Record<string, unknown>>, then = "Dispatched, waiting for results."): string {
  const first: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Delegate please. ${fakeDirective([first, { text: then }])}`;
}

describe.skipIf(skipTuiTests())("budgets, ledger and fan-out gate in the TUI", () => {
  it("shows turn n/N in the widget and stops the looping child at its turn budget, keeping its partial output", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv({ workerFrontmatter: "maxTurns: 2" });
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(dispatchPrompt([{ agent: "worker", task: loopingTask() }]));
    await t.waitForText("turn 1/2", 90_000);
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length === 1,
      120_000,
      "the stopped task's result",
    );
    const envelope = resultsIn(delivered)[0]!;
    expect(envelope).toMatch(/^## \[subagent-result\] worker stopped \(taskId: /);
    expect(envelope).toContain("- Status: stopped: turn budget 2 reached");
    expect(envelope).toContain("- Budget: maxTurns 2");
    expect(envelope).toContain("LOOP-STEP-2");
    expect(suite.fake.requests.filter(isWorkerRequest)).toHaveLength(2);
    // No child pi and no `sleep 20` of its bash tool is left: only the TUI's own pi, its shell and tmux remain.
    const keep = await t.harnessPids(true);
    expect(await waitForNoProcesses(suite.env.marker, 20_000, keep)).toEqual([]);
    expect(await t.quit()).toBe(0);
  });

  it("sums three results in the footer and /subagent-usage, and /reload keeps the footer total", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv();
    answerResultsWithOk();
    const t = await suite.startTui();
    await t.submit(delegateKnownTasks());
    const footer = "subagents: 3 tasks · ↑60k ↓6k · $0.0720";
    await t.waitForText(footer, 120_000);
    await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 3, 120_000, "all three results");
    await t.submit("/subagent-usage");
    await t.waitForScreen(
      (screen) => screen.replace(/\s+/g, " ").includes(KNOWN_TOTAL_LINE.replace(/\s+/g, " ").slice(0, 60)),
      30_000,
      "the usage report's total line",
    );
    await t.press("Escape");
    await t.waitForNoText("Subagent usage in this session", 10_000);
    expect(await t.screen()).not.toContain(RELOADED);
    await t.submit("/reload");
    // Typed while pi is still reloading, a prompt can be lost: wait until the reload is done.
    await t.waitForText(RELOADED, 30_000);
    // A turn after the reload proves the footer on screen is the reloaded extension's, rebuilt from the session.
    await t.submit(`Still there? ${fakeDirective({ text: "AFTER-RELOAD" })}`);
    await t.waitForAll(["AFTER-RELOAD", footer], 60_000);
    expect(await t.quit()).toBe(0);
    // The same session, continued in print mode, has the same ledger.
    const printed = await runPi(["-e", EXTENSION_ENTRY, "-c", "-p", "/subagent-usage"], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 60_000,
    });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout.split("\n")).toContain(KNOWN_TOTAL_LINE);
  });

  // Our own gate; pi's confirm dialog in the TUI is child-dialogs' contract test.
  it("past the fan-out cap asks the person once, and a yes dispatches the rest", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv();
    answerResultsWithOk();
    const t = await suite.startTui({ extraEnv: { PI_SUBAGENT_MAX_TASKS_PER_TURN: "1" } });
    const say = (text: string) => ({ agent: "worker", task: `Say it. ${fakeDirective({ text })}` });
    await t.submit(dispatchPrompt([say("GATE-ONE"), say("GATE-TWO")]));
    await t.waitForText("Allow more subagents?", 60_000);
    await t.press("Enter");
    await suite.fake.waitForRequest((r) => isParent(r) && resultsIn(r).length === 2, 120_000, "both results");
    expect(suite.fake.requests.filter(isWorkerRequest)).toHaveLength(2);
    expect(await t.quit()).toBe(0);
  });
});
