import { describe, expect, it } from "vitest";
import type { SubagentResultDetails } from "../../../../src/records/record-store.ts";
import type { SyncProgress } from "../../../../src/tool/run-sync.ts";
import {
  callText,
  classifyResult,
  progressLine,
  renderSubagentCall,
  renderSubagentResult,
  syncResultLines,
} from "../../../../src/pi/ui/cards.ts";
import { darkTheme, plain, plainLines } from "./helpers.ts";

const TASK_ID = "01912345-6789-7abc-8def-0123456789ab";
const theme = darkTheme();
const context = { lastComponent: undefined, isError: false };

function text(content: string) {
  return [{ type: "text" as const, text: content }];
}

function rendered(component: { render(width: number): string[] }, width = 100): string[] {
  return plainLines(component.render(width));
}

const syncDetails: SubagentResultDetails = {
  taskId: TASK_ID,
  agent: "coder",
  task: "Fix it.",
  status: "succeeded",
  exitCode: 0,
  stopReason: "stop",
  durationMs: 12_000,
  usage: { turns: 1, input: 100, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0.0001, contextTokens: 0 },
  sessionId: TASK_ID,
  output: "Fixed **everything**.",
};

describe("callText", () => {
  it("a dispatch: `subagent <agent>` and the task in one line", () => {
    expect(callText({ agent: "coder", task: "Refactor the auth\nmiddleware." })).toEqual({
      head: "subagent",
      subject: "coder",
      detail: "Refactor the auth middleware.",
    });
  });

  it("a batch or chain: `subagent batch <agents>` and each task in one line; a merge names its task", () => {
    expect(
      callText({
        tasks: [
          { agent: "explore", task: "Find A." },
          { agent: "coder", task: "Fix\nB." },
        ],
      }),
    ).toEqual({
      head: "subagent batch",
      subject: "explore, coder",
      detail: "1. Find A. · 2. Fix B.",
    });
    expect(callText({ chain: [{ agent: "planner", task: "Plan." }, { task: "Do {previous}" } as never] })).toEqual({
      head: "subagent chain",
      subject: "planner, …",
      detail: "1. Plan. · 2. Do {previous}",
    });
    expect(callText({ action: "merge", taskId: TASK_ID, confirm: true })).toEqual({
      head: "subagent merge",
      subject: TASK_ID,
      detail: "confirm",
    });
  });

  it("a resumed dispatch names the session it resumes", () => {
    expect(callText({ agent: "coder", task: "More.", sessionId: TASK_ID }).detail).toBe("resume 456789ab · More.");
  });

  it("a long task is cut to one short line", () => {
    const detail = callText({ agent: "coder", task: "word ".repeat(100) }).detail!;
    expect(detail.length).toBeLessThanOrEqual(120);
    expect(detail.endsWith("…")).toBe(true);
  });

  it("while the arguments stream in, missing parts show as …", () => {
    expect(callText({})).toEqual({ head: "subagent", subject: "…", detail: undefined });
  });

  it("a cancel: `subagent cancel <id>`, with the reason once confirmed", () => {
    expect(callText({ action: "cancel", taskId: TASK_ID })).toEqual({
      head: "subagent cancel",
      subject: TASK_ID,
      detail: undefined,
    });
    expect(callText({ action: "cancel", taskId: TASK_ID, confirm: true, reason: "wrong agent" }).detail).toBe(
      "confirm: wrong agent",
    );
  });
});

describe("progressLine", () => {
  const progress: SyncProgress = {
    taskId: TASK_ID,
    agent: "coder",
    phase: "⚡ bash: npm test",
    elapsedMs: 12_000,
    usage: "2 turns/↑1.2k/↓300/$0.0010",
  };

  it("agent, phase, clock and usage while a tool runs", () => {
    expect(progressLine(progress)).toBe("coder · ⚡ bash: npm test · 00:12 · 2 turns/↑1.2k/↓300/$0.0010");
  });

  it("adds the latest tool when the child is past it", () => {
    expect(progressLine({ ...progress, phase: "thinking", lastTool: "bash: npm test" })).toBe(
      "coder · thinking · last tool bash: npm test · 00:12 · 2 turns/↑1.2k/↓300/$0.0010",
    );
  });
});

describe("classifyResult", () => {
  it("tells the tool's answers apart by their details", () => {
    expect(
      classifyResult({ receipt: true, taskId: TASK_ID, agent: "coder", task: "t", queued: false }, false).kind,
    ).toBe("receipt");
    expect(classifyResult({ progress: { agent: "coder" } }, true).kind).toBe("progress");
    expect(classifyResult({ confirmRequired: true, taskId: TASK_ID, agent: "coder" }, false).kind).toBe("challenge");
    expect(classifyResult({ cancelRequested: true, taskId: TASK_ID, agent: "coder", reason: "r" }, false).kind).toBe(
      "cancel-sent",
    );
    expect(classifyResult(syncDetails, false).kind).toBe("result");
    expect(classifyResult(undefined, false).kind).toBe("text");
    expect(classifyResult({}, false).kind).toBe("text");
  });
});

describe("syncResultLines", () => {
  it("a blocking result: outcome, short id, duration and usage", () => {
    expect(syncResultLines(syncDetails, plain)).toEqual([
      "✓ coder succeeded · 456789ab · 00:12 · 1 turn/↑100/↓20/$0.0001",
    ]);
  });

  it("a failed one adds its badge and error", () => {
    const failed = {
      ...syncDetails,
      status: "failed" as const,
      exitCode: 1,
      stopReason: "error",
      errorMessage: "boom",
    };
    expect(syncResultLines(failed, plain)).toEqual([
      "✗ coder failed [error] · 456789ab · 00:12 · 1 turn/↑100/↓20/$0.0001",
      "Error: boom",
    ]);
  });
});

describe("renderSubagentCall", () => {
  it("draws the call compactly instead of JSON", () => {
    const lines = rendered(
      renderSubagentCall({ agent: "coder", task: "Refactor the auth middleware." }, theme, context),
    );
    expect(lines).toEqual(["subagent coder", "Refactor the auth middleware."]);
    const cancel = rendered(
      renderSubagentCall({ action: "cancel", taskId: TASK_ID, confirm: true, reason: "not needed" }, theme, context),
    );
    expect(cancel).toEqual([`subagent cancel ${TASK_ID}`, "confirm: not needed"]);
  });

  it("reuses the component pi hands back", () => {
    const first = renderSubagentCall({ agent: "coder" }, theme, context);
    const second = renderSubagentCall({ agent: "coder", task: "t" }, theme, { ...context, lastComponent: first });
    expect(second).toBe(first);
    expect(rendered(second)).toEqual(["subagent coder", "t"]);
  });
});

describe("renderSubagentResult", () => {
  const options = { expanded: false, isPartial: false };

  it("a background dispatch shows the receipt line", () => {
    const receipt = `Dispatched coder. taskId: ${TASK_ID}`;
    const component = renderSubagentResult(
      { content: text(receipt), details: { receipt: true, taskId: TASK_ID, agent: "coder", task: "t", queued: false } },
      options,
      theme,
      context,
    );
    expect(rendered(component)).toEqual([receipt]);
  });

  it("a running blocking dispatch shows its progress line", () => {
    const progress: SyncProgress = {
      taskId: TASK_ID,
      agent: "coder",
      phase: "thinking",
      elapsedMs: 3_000,
      usage: "1 turn/↑100/↓20/$0.0001",
    };
    const component = renderSubagentResult(
      { content: text("coder: thinking (00:03)"), details: { progress } },
      { expanded: false, isPartial: true },
      theme,
      context,
    );
    expect(rendered(component)).toEqual(["● coder · thinking · 00:03 · 1 turn/↑100/↓20/$0.0001"]);
  });

  it("a blocking result is one line collapsed and the Markdown output expanded", () => {
    const result = { content: text(`Fixed **everything**.\n\n[subagent session: ${TASK_ID}]`), details: syncDetails };
    expect(rendered(renderSubagentResult(result, options, theme, context))).toEqual([
      "✓ coder succeeded · 456789ab · 00:12 · 1 turn/↑100/↓20/$0.0001 (ctrl+o to expand)",
    ]);
    const expanded = rendered(
      renderSubagentResult(result, { expanded: true, isPartial: false }, theme, context),
    ).filter((line) => line);
    expect(expanded).toEqual(["✓ coder succeeded · 456789ab · 00:12 · 1 turn/↑100/↓20/$0.0001", "Fixed everything."]);
  });

  it("a cancel challenge shows its first line collapsed and all of it expanded", () => {
    const challenge =
      "Confirm before cancelling. Nothing has been cancelled yet.\n- Task: x (coder): t\n- Running for: 00:10";
    const result = { content: text(challenge), details: { confirmRequired: true, taskId: TASK_ID, agent: "coder" } };
    expect(rendered(renderSubagentResult(result, options, theme, context))).toEqual([
      "Confirm before cancelling. Nothing has been cancelled yet. (ctrl+o to expand)",
    ]);
    expect(rendered(renderSubagentResult(result, { expanded: true, isPartial: false }, theme, context))).toEqual(
      challenge.split("\n"),
    );
  });

  it("a confirmed cancel shows the confirmation", () => {
    const sent = `Cancel request sent for ${TASK_ID} (coder). Its cancelled result will arrive as a [subagent-result] notification.\n\nNo other tasks are in flight now.`;
    const result = {
      content: text(sent),
      details: { cancelRequested: true, taskId: TASK_ID, agent: "coder", reason: "r" },
    };
    const lines = rendered(renderSubagentResult(result, options, theme, { ...context }), 200);
    expect(lines).toEqual([
      `Cancel request sent for ${TASK_ID} (coder). Its cancelled result will arrive as a [subagent-result] notification. (ctrl+o to expand)`,
    ]);
  });

  it("an error shows its text in full", () => {
    const result = { content: text("Unknown agent: nope.\nAvailable agents: coder, writer"), details: {} };
    expect(rendered(renderSubagentResult(result, options, theme, { ...context, isError: true }))).toEqual([
      "Unknown agent: nope.",
      "Available agents: coder, writer",
    ]);
  });
});
