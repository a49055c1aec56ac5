import { visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import type { SubagentResultDetails } from "../../../../src/records/record-store.ts";
import { cardLines, cardText, renderResultCard } from "../../../../src/pi/ui/cards.ts";
import { darkTheme, plain, plainLines } from "./helpers.ts";

const TASK_ID = "01912345-6789-7abc-8def-0123456789ab";

function details(overrides: Partial<SubagentResultDetails> = {}): SubagentResultDetails {
  return {
    taskId: TASK_ID,
    agent: "coder",
    task: "Refactor the auth middleware to use async/await.",
    status: "succeeded",
    exitCode: 0,
    stopReason: "stop",
    durationMs: 154_000,
    usage: { turns: 5, input: 12_500, output: 3_200, cacheRead: 0, cacheWrite: 0, cost: 0.0042, contextTokens: 0 },
    sessionId: TASK_ID,
    output: "## Done\n\nThe middleware now uses **async/await**.",
    ...overrides,
  };
}

const FIGURES = "456789ab · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042";

describe("cardText", () => {
  it("succeeded: ✓ in the success colour, no badge, no note", () => {
    expect(cardText(details())).toEqual({
      icon: "✓",
      tone: "success",
      title: "coder succeeded",
      badge: undefined,
      meta: FIGURES,
      notes: [],
      viewLine: `View full result: /subagent-result ${TASK_ID}`,
    });
  });

  it("failed: ✗ in the error colour, the stop reason as a badge, and the error", () => {
    const card = cardText(
      details({
        status: "failed",
        exitCode: 1,
        stopReason: "error",
        errorMessage: "500 Internal Server Error\nupstream",
      }),
    );
    expect(card).toMatchObject({
      icon: "✗",
      tone: "error",
      title: "coder failed",
      badge: "error",
      notes: ["Error: 500 Internal Server Error upstream"],
    });
  });

  it("stopped by a budget: the warning colour, the budget's stop reason as the badge, and the budget as the reason", () => {
    const card = cardText(
      details({ status: "stopped", exitCode: null, stopReason: "turn_budget", errorMessage: "turn budget 2 reached" }),
    );
    expect(card).toMatchObject({
      icon: "✗",
      tone: "warning",
      title: "coder stopped",
      badge: "turn_budget",
      notes: ["Stopped: turn budget 2 reached"],
    });
  });

  it("failed without a stop reason shows the exit code as the badge", () => {
    expect(cardText(details({ status: "failed", exitCode: 2, stopReason: undefined })).badge).toBe("exit 2");
  });

  it("timed out: ✗ in the warning colour with activity_timeout or hard_timeout as the badge", () => {
    expect(cardText(details({ status: "timed out", exitCode: null, stopReason: "activity_timeout" }))).toMatchObject({
      icon: "✗",
      tone: "warning",
      title: "coder timed out",
      badge: "activity_timeout",
    });
    expect(cardText(details({ status: "timed out", exitCode: null, stopReason: "hard_timeout" })).badge).toBe(
      "hard_timeout",
    );
  });

  it("cancelled says who cancelled it, for each of the three cases", () => {
    const cancelled = (over: Partial<SubagentResultDetails>) =>
      cardText(details({ status: "cancelled", exitCode: null, stopReason: "aborted", ...over }));
    expect(cancelled({ cancelledBy: "user" })).toMatchObject({
      icon: "✗",
      tone: "warning",
      title: "coder cancelled",
      badge: "aborted",
      notes: ["Cancelled by you (/subagent-cancel)"],
    });
    // /subagent-cancel-all is named when it was the command used.
    expect(cancelled({ cancelledBy: "user", cancelReason: "/subagent-cancel-all" }).notes).toEqual([
      "Cancelled by you (/subagent-cancel-all)",
    ]);
    expect(cancelled({ cancelledBy: "agent", cancelReason: "wrong agent" }).notes).toEqual([
      "Cancelled by the main agent: wrong agent",
    ]);
    expect(cancelled({ cancelledBy: "none", stopReason: "killed_on_shutdown" })).toMatchObject({
      badge: "killed_on_shutdown",
      notes: ["Stopped because the session shut down"],
    });
  });

  it("shows the duration as H:MM:SS from one hour on", () => {
    expect(cardText(details({ durationMs: 3_723_000 })).meta).toContain("· 1:02:03 ·");
  });
});

describe("cardLines", () => {
  it("collapsed: the outcome line (with the expand hint), then the task in one line", () => {
    const lines = cardLines(details({ task: "Line one\nline two" }), false, plain, "(ctrl+o to expand)");
    expect(lines).toEqual([`✓ coder succeeded · ${FIGURES} (ctrl+o to expand)`, "Task: Line one line two"]);
  });

  it("a failure's badge sits after the title, its note under the outcome line", () => {
    const lines = cardLines(
      details({ status: "timed out", exitCode: null, stopReason: "activity_timeout" }),
      false,
      plain,
    );
    expect(lines[0]).toBe(`✗ coder timed out [activity_timeout] · ${FIGURES}`);
  });

  it("expanded: the task in full, no hint", () => {
    const lines = cardLines(details({ task: "Line one\nline two" }), true, plain, "(ctrl+o to expand)");
    expect(lines).toEqual([`✓ coder succeeded · ${FIGURES}`, "Task: Line one\nline two"]);
  });
});

describe("renderResultCard", () => {
  const theme = darkTheme();

  it("collapsed, the card shows the outcome and the command, never the output or the envelope", () => {
    const component = renderResultCard({ details: details() }, { expanded: false }, theme)!;
    const lines = plainLines(component.render(100)).filter((line) => line.trim());
    expect(lines).toEqual([
      ` ✓ coder succeeded · ${FIGURES} (ctrl+o to expand)`,
      " Task: Refactor the auth middleware to use async/await.",
      ` View full result: /subagent-result ${TASK_ID}`,
    ]);
  });

  it("expanded (Ctrl+O), it shows the output rendered as Markdown", () => {
    const component = renderResultCard({ details: details() }, { expanded: true }, theme)!;
    const text = plainLines(component.render(100)).join("\n");
    expect(text).toContain(" Done");
    expect(text).not.toContain("## Done");
    expect(text).toContain("The middleware now uses async/await.");
    expect(text).toContain(`View full result: /subagent-result ${TASK_ID}`);
  });

  it("expanded without output says so", () => {
    const component = renderResultCard(
      { details: details({ status: "cancelled", output: "", cancelledBy: "user" }) },
      { expanded: true },
      theme,
    )!;
    expect(plainLines(component.render(80)).join("\n")).toContain("(no output)");
  });

  it("fits the width it is given", () => {
    const component = renderResultCard({ details: details({ task: "x".repeat(500) }) }, { expanded: false }, theme)!;
    for (const line of component.render(40)) expect(visibleWidth(line)).toBeLessThanOrEqual(40);
  });

  it("leaves a message it cannot read to pi's default rendering", () => {
    expect(renderResultCard({ details: undefined }, { expanded: false }, theme)).toBeUndefined();
    expect(renderResultCard({ details: { taskId: 1 } }, { expanded: false }, theme)).toBeUndefined();
  });
});
