/**
 * Control sequences in model or file text never reach the terminal: not in the tool row, the result card,
 * the viewer, the widget or a warning.
 */
import { describe, expect, it } from "vitest";
import { formatAgentWarning, reportWarningsOnce, resetReportedWarningsForTests } from "../../../src/agents/warnings.ts";
import { oneLine, stripTerminalControls } from "../../../src/shared/text.ts";
import type { SubagentResultDetails } from "../../../src/records/record-store.ts";
import { cardLines, renderResultCard, renderSubagentCall, renderSubagentResult } from "../../../src/pi/ui/cards.ts";
import { widgetLines } from "../../../src/pi/ui/progress.ts";
import { plainStreamText } from "../../../src/pi/ui/views.ts";
import { darkTheme, plain, runningTask, runState } from "../pi/ui/helpers.ts";

const TITLE = "\u001b]0;PWNED\u0007";
const TITLE_ST = "\u001b]2;PWNED\u001b\\";
const CLEAR = "\u001b[2J\u001b[H";
const LINK = "\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007";
const HOSTILE = `Fix it ${TITLE}${CLEAR}${LINK}${TITLE_ST} now\u009b31m\u0090q\u009c\r`;
const TASK_ID = "01912345-6789-7abc-8def-0123456789ab";

/** Rendered lines with the theme's own colour codes taken out: nothing escape-like may remain. */
function leftovers(lines: readonly string[]): string[] {
  // eslint-disable-next-line no-control-regex
  const withoutColours = lines.map((line) => line.replace(/\u001b\[[0-9;]*m/g, ""));
  // eslint-disable-next-line no-control-regex
  return withoutColours.filter((line) => /[\u0000-\u001f\u007f-\u009f]/.test(line));
}

describe("stripTerminalControls", () => {
  it("removes OSC (title, link), CSI, DCS and C1 sequences, keeps the words, line breaks and tabs", () => {
    expect(stripTerminalControls(HOSTILE)).toBe("Fix it click now");
    expect(stripTerminalControls("a\tb\nc\r\nd")).toBe("a\tb\nc\nd");
    expect(stripTerminalControls("plain ✓ text")).toBe("plain ✓ text");
    expect(stripTerminalControls("cut \u001b]0;never ends")).toBe("cut ");
  });

  it("is what oneLine and the watch view use", () => {
    expect(oneLine(HOSTILE, 100)).toBe("Fix it click now");
    expect(plainStreamText(`a\t${TITLE}b`)).toBe("a  b");
  });
});

describe("what the TUI draws from model text", () => {
  const theme = darkTheme();
  const context = { lastComponent: undefined, isError: false };
  const details: SubagentResultDetails = {
    taskId: TASK_ID,
    agent: "coder",
    task: HOSTILE,
    status: "cancelled",
    cancelledBy: "agent",
    cancelReason: HOSTILE,
    exitCode: null,
    durationMs: 1000,
    usage: { turns: 1, input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
    sessionId: TASK_ID,
    output: `# Title\n\n${HOSTILE}`,
  };

  it("the tool row: the call, and an error text that repeats model input", () => {
    const call = renderSubagentCall({ agent: `coder${TITLE}`, task: HOSTILE }, theme, context).render(100);
    expect(leftovers(call)).toEqual([]);
    expect(call.join("\n")).toContain("Fix it click now");
    const cancel = renderSubagentCall(
      { action: "cancel", taskId: `x${CLEAR}`, confirm: true, reason: HOSTILE },
      theme,
      context,
    ).render(100);
    expect(leftovers(cancel)).toEqual([]);
    const error = renderSubagentResult(
      { content: [{ type: "text", text: `Unknown agent "${TITLE}x".` }], details: undefined },
      { expanded: true, isPartial: false },
      theme,
      { lastComponent: undefined, isError: true },
    ).render(100);
    expect(leftovers(error)).toEqual([]);
    const result = renderSubagentResult(
      { content: [{ type: "text", text: "x" }], details },
      { expanded: true, isPartial: false },
      theme,
      context,
    ).render(100);
    expect(leftovers(result)).toEqual([]);
  });

  it("the result card, collapsed and expanded", () => {
    for (const expanded of [false, true]) {
      expect(leftovers(cardLines(details, expanded, plain))).toEqual([]);
      expect(leftovers(renderResultCard({ details }, { expanded }, theme)!.render(100))).toEqual([]);
    }
  });

  it("the widget's rows (a tool name and arguments written by the child's model)", () => {
    const task = runningTask({
      task: HOSTILE,
      state: runState({ lastTool: { name: `bash${TITLE}`, summary: `ls ${CLEAR}`, at: 0 } }),
    });
    const lines = widgetLines([task], 1000, 120, plain);
    expect(leftovers(lines)).toEqual([]);
    expect(lines.join("\n")).toContain("bash");
  });

  it("warnings that quote a file", () => {
    resetReportedWarningsForTests();
    const shown: string[] = [];
    const sink = { hasUI: true, ui: { notify: (message: string) => shown.push(message) } };
    reportWarningsOnce([formatAgentWarning({ filePath: `/a/${TITLE}.md`, reason: `invalid YAML ${CLEAR}` })], sink);
    expect(shown).toHaveLength(1);
    expect(leftovers(shown)).toEqual([]);
  });
});
