import { describe, expect, it } from "vitest";
import {
  LEDGER_ENTRY_TYPE,
  ledgerEntriesOf,
  ledgerEntryOf,
  summarize,
  formatMicros,
  ledgerFooterText,
  ledgerReportLines,
  NO_USAGE_YET,
} from "../../../src/budget/usage.ts";
import { emptyUsage, formatUsage } from "../../../src/shared/text.ts";

function ended(
  taskId: string,
  agent: string,
  status: string,
  usage: Partial<ReturnType<typeof emptyUsage>>,
  model = "fake/fake-model",
) {
  return { taskId, agent, status, model, finishedAt: 1, usage: { ...emptyUsage(), ...usage } };
}

const tasks = [
  ended("a", "worker", "succeeded", { turns: 1, input: 10000, output: 1000, cost: 0.1 }),
  ended("b", "worker", "stopped", { turns: 2, input: 20000, output: 2000, cacheRead: 50, cost: 0.2 }),
  ended(
    "c",
    "reviewer",
    "succeeded",
    { turns: 3, input: 1, output: 2, cacheWrite: 7, cost: 0.3 },
    "fake/fake-reasoner",
  ),
];

describe("the session ledger", () => {
  it("sums exactly, in micro-units: 0.1 + 0.2 + 0.3 is $0.6000, not a float's 0.6000000000000001", () => {
    const summary = summarize(tasks.map(ledgerEntryOf));
    expect(summary.total).toEqual({
      tasks: 3,
      turns: 6,
      input: 30001,
      output: 3002,
      cacheRead: 50,
      cacheWrite: 7,
      costMicros: 600_000,
    });
    expect(formatMicros(summary.total.costMicros)).toBe("$0.6000");
    expect([...summary.byStatus]).toEqual([
      ["succeeded", 2],
      ["stopped", 1],
    ]);
    expect(summary.byAgent.get("worker")).toMatchObject({ tasks: 2, input: 30000, costMicros: 300_000 });
    expect(summary.byModel.get("fake/fake-reasoner")).toMatchObject({ tasks: 1, turns: 3 });
  });

  it("equals the sum of what the envelopes print, to the token and to four places of cost", () => {
    const summary = summarize(tasks.map(ledgerEntryOf));
    const printedTenThousandths = tasks
      .map((task) => Math.round(Number(formatUsage(task.usage).split("$")[1]) * 10_000))
      .reduce((sum, value) => sum + value, 0);
    expect(summary.total.costMicros / 100).toBe(printedTenThousandths);
  });

  it("reads its entries back from a session's entries, skipping others and malformed ones", () => {
    const good = ledgerEntryOf(tasks[0]!);
    const entries = [
      { type: "message", message: {} },
      { type: "custom", customType: LEDGER_ENTRY_TYPE, data: good },
      { type: "custom", customType: "other", data: good },
      { type: "custom", customType: LEDGER_ENTRY_TYPE, data: { ...good, input: -5 } },
      { type: "custom", customType: LEDGER_ENTRY_TYPE, data: "junk" },
    ];
    expect(ledgerEntriesOf(entries)).toEqual([good]);
  });

  it("reads as a compact footer once something ran, and as a full report", () => {
    expect(ledgerFooterText(summarize([]))).toBeUndefined();
    expect(ledgerReportLines(summarize([]))).toEqual([NO_USAGE_YET]);
    const summary = summarize(tasks.map(ledgerEntryOf));
    expect(ledgerFooterText(summary)).toBe("subagents: 3 tasks · ↑30k ↓3k · $0.6000");
    expect(ledgerReportLines(summary)).toEqual([
      "Subagent usage in this session",
      "Total: 3 tasks · 6 turns · input 30001 · output 3002 · cache read 50 · cache write 7 · cost $0.6000",
      "Tasks by status: succeeded 2 · stopped 1",
      "By agent:",
      "- worker: 2 tasks · 3 turns · input 30000 · output 3000 · cache read 50 · cache write 0 · cost $0.3000",
      "- reviewer: 1 task · 3 turns · input 1 · output 2 · cache read 0 · cache write 7 · cost $0.3000",
      "By model:",
      "- fake/fake-model: 2 tasks · 3 turns · input 30000 · output 3000 · cache read 50 · cache write 0 · cost $0.3000",
      "- fake/fake-reasoner: 1 task · 3 turns · input 1 · output 2 · cache read 0 · cache write 7 · cost $0.3000",
    ]);
  });

  it("says `1 turn`, not `1 turns`", () => {
    expect(ledgerReportLines(summarize([ledgerEntryOf(tasks[0]!)]))[1]).toBe(
      "Total: 1 task · 1 turn · input 10000 · output 1000 · cache read 0 · cache write 0 · cost $0.1000",
    );
  });
});
