/**
 * What the person sees of background subagents in the real pi TUI (tmux, fake model): two dispatches in one
 * turn give two compact tool rows with their receipts at once; the progress widget above the editor lists
 * both tasks with a ticking clock and the footer counts them; as each result arrives its card replaces the
 * envelope on screen, the widget shrinks and then disappears, and the footer keeps the done count; Ctrl+O
 * expands the card to the output rendered as Markdown; /quit leaves no process behind.
 *
 * The children's answers are held by the fake model until the test releases them, so every state is observed
 * on purpose rather than caught by timing.
 *
 * @module-tag contract
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const WAIT_MS = 60_000;

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The widget row of a task: its short id, the agent, what it does, and the clock at the end. */
function widgetRow(screen: string, shortId: string): { activity: string; clock: string } | undefined {
  const match = new RegExp(`^ ● ${escape(shortId)}\\s+worker\\s+(.*?)\\s+(\\d\\d:\\d\\d)\\s*$`, "m").exec(screen);
  return match ? { activity: match[1]!, clock: match[2]! } : undefined;
}

describe.skipIf(skipTuiTests())("TUI progress widget, status segment, result cards and tool rows", () => {
  const suite = useE2eSuite();

  it("shows both tasks while they run, a card per result, and clears the widget when all are done", {
    tags: ["tui"],
  }, async () => {
    const alpha = gate();
    const beta = gate();
    suite.fake.on({
      when: (req) => isWorkerRequest(req) && req.lastText.includes("Job Alpha"),
      reply: async () => {
        await alpha.promise;
        return { text: "Alpha report: **all checks passed**\n\n- first finding\n- second finding" };
      },
    });
    suite.fake.on({
      when: (req) => isWorkerRequest(req) && req.lastText.includes("Job Beta"),
      reply: async () => {
        await beta.promise;
        return { text: "Beta report: **nothing to fix**" };
      },
    });

    const tui = await suite.startTui({ width: 120, height: 50 });
    const parentTurn = fakeDirective([
      {
        toolCalls: [
          { name: "subagent", arguments: { agent: "worker", task: "Job Alpha: inspect the parser." } },
          { name: "subagent", arguments: { agent: "worker", task: "Job Beta: inspect the printer." } },
        ],
      },
      { text: "Both dispatched; waiting for results." },
    ]);
    await tui.submit(`Run the two jobs ${parentTurn}`);

    // Both receipts are on screen at once, each under its compact tool row (not JSON).
    const receipts = /Dispatched worker\. taskId: ([0-9a-f-]{36})/g;
    const dispatched = await tui.waitForScreen(
      (screen) => [...screen.matchAll(receipts)].length === 2,
      WAIT_MS,
      "two receipts",
    );
    const [idAlpha, idBeta] = [...dispatched.matchAll(receipts)].map((match) => match[1]!);
    expect(idAlpha).not.toBe(idBeta);
    expect(dispatched).toMatch(/^ subagent worker\s*\n Job Alpha: inspect the parser\.\s*$/m);
    expect(dispatched).toMatch(/^ subagent worker\s*\n Job Beta: inspect the printer\.\s*$/m);
    // pi's fallback would print the arguments as indented JSON.
    expect(dispatched).not.toContain('"agent": "worker"');

    // Both children run at the same time (both requests are held by the fake model).
    await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("Job Alpha"),
      WAIT_MS,
      "the Alpha child",
    );
    await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("Job Beta"),
      WAIT_MS,
      "the Beta child",
    );

    // The widget: a titled rule with the count and one row per task; the footer counts them.
    const shortAlpha = idAlpha!.slice(-8);
    const shortBeta = idBeta!.slice(-8);
    // Each row follows its child's live state: both children have started their model call ("thinking").
    const running = await tui.waitForScreen(
      (screen) =>
        /── Subagents · 2 running ─+/.test(screen) &&
        widgetRow(screen, shortAlpha)?.activity === "thinking" &&
        widgetRow(screen, shortBeta)?.activity === "thinking",
      WAIT_MS,
      "the widget with both rows",
    );
    expect(running).toContain("⚙ 2 running · 0 done");

    // One shared timer keeps the clocks moving while nothing else happens.
    const firstClock = widgetRow(running, shortAlpha)!.clock;
    await tui.waitForScreen(
      (screen) => {
        const row = widgetRow(screen, shortAlpha);
        return !!row && row.clock > firstClock;
      },
      10_000,
      `Alpha's clock to move past ${firstClock}`,
    );

    // Alpha's result: its card replaces the envelope; the widget shrinks to Beta.
    alpha.open();
    const afterAlpha = await tui.waitForScreen(
      // The footer is drawn on its own render: waited for with the rest, not caught between two renders.
      (screen) =>
        screen.includes(`View full result: /subagent-result ${idAlpha}`) &&
        /── Subagents · 1 running ─+/.test(screen) &&
        screen.includes("⚙ 1 running · 1 done"),
      WAIT_MS,
      "Alpha's card, a one-row widget and the footer's count",
    );
    expect(afterAlpha).toMatch(new RegExp(`✓ worker succeeded · ${escape(shortAlpha)} · \\d\\d:\\d\\d · 1 turn/`));
    expect(afterAlpha).toContain("Task: Job Alpha: inspect the parser.");
    expect(widgetRow(afterAlpha, shortAlpha)).toBeUndefined();
    expect(widgetRow(afterAlpha, shortBeta)).toBeDefined();
    expect(afterAlpha).toContain("⚙ 1 running · 1 done");
    // The model got the envelope; the person sees the card instead of it.
    await suite.fake.waitForRequest(
      (req) =>
        !isWorkerRequest(req) && req.lastText.includes(`[subagent-result] worker succeeded (taskId: ${idAlpha})`),
      WAIT_MS,
      "Alpha's envelope",
    );
    expect(afterAlpha).not.toContain("This is a task-completion notification");
    expect(afterAlpha).not.toContain("Alpha report");

    // Beta's result: both cards on screen, the widget gone, the footer keeps the done count.
    beta.open();
    await tui.waitForScreen(
      (screen) =>
        screen.includes(`View full result: /subagent-result ${idBeta}`) &&
        screen.includes(`View full result: /subagent-result ${idAlpha}`) &&
        new RegExp(`✓ worker succeeded · ${escape(shortBeta)} · `).test(screen) &&
        !screen.includes("Subagents ·"),
      WAIT_MS,
      "both cards and no widget",
    );
    await tui.waitForText("⚙ 0 running · 2 done", WAIT_MS);

    // Ctrl+O expands the cards to the output, rendered as Markdown.
    await tui.press("C-o");
    const expanded = await tui.waitForText("Beta report: nothing to fix", 20_000);
    expect(expanded).not.toContain("**nothing to fix**");

    expect(await tui.quit()).toBe(0);
    await tui.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
