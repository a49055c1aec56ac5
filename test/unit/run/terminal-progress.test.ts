/**
 * The stderr lines of a blocking run in print and JSON mode: src/tool/run-sync.ts (which lines, and
 * when) and src/tool/run-sync.ts (only the main pi in print or JSON mode, silenced by
 * PI_SUBAGENT_PROGRESS=0, never a throw).
 */
import { describe, expect, it } from "vitest";
import {
  endLine,
  progressLinesWanted,
  PROGRESS_LINE_MIN_MS,
  QUIET_LINE_MS,
  startLine,
  TerminalProgress,
  openStderrProgress,
} from "../../../src/tool/run-sync.ts";
import { emptyUsage } from "../../../src/shared/text.ts";

const ID = "01a24177-831b-70e9-9b68-dc543ba7b57b";

describe("a blocking run's stderr lines", () => {
  it("says when the child starts and ends, with the agent and the whole task id", () => {
    expect(startLine("worker", ID)).toBe(`subagent worker started · task ${ID}`);
    expect(endLine("worker", ID, "succeeded", 9_000, "2 turns/↑1.2k/↓300")).toBe(
      `subagent worker succeeded · 00:09 · 2 turns/↑1.2k/↓300 · task ${ID}`,
    );
  });

  it("writes a progress line for new tool calls at most every few seconds, and one when the child has been quiet for long", () => {
    const lines = new TerminalProgress("worker", ID);
    const at = (elapsedMs: number, toolCalls: number, phase = "⚡ bash: npm test", lastTool = "bash: npm test") =>
      lines.tick({ elapsedMs, toolCalls, phase, lastTool });
    // A tool call right away: not before the least interval after the start line.
    expect(at(1_000, 1)).toBeUndefined();
    expect(at(PROGRESS_LINE_MIN_MS, 1)).toBe(`subagent worker …a7b57b · 00:05 · ⚡ bash: npm test · 1 tool call`);
    // Nothing new: silent until the quiet interval.
    expect(at(PROGRESS_LINE_MIN_MS + 6_000, 1)).toBeUndefined();
    // New calls, but too soon after the last line; then due.
    expect(at(PROGRESS_LINE_MIN_MS + 1_000, 3)).toBeUndefined();
    expect(at(2 * PROGRESS_LINE_MIN_MS, 3, "waiting for the model")).toBe(
      `subagent worker …a7b57b · 00:10 · waiting for the model (last: bash: npm test) · 3 tool calls`,
    );
    expect(at(2 * PROGRESS_LINE_MIN_MS + QUIET_LINE_MS - 1, 3)).toBeUndefined();
    expect(at(2 * PROGRESS_LINE_MIN_MS + QUIET_LINE_MS, 3, "thinking")).toMatch(
      /^subagent worker …a7b57b · 00:40 · thinking \(last: bash: npm test\) · 3 tool calls$/,
    );
  });

  it("keeps a child's control sequences out of the terminal and cuts a long command", () => {
    const lines = new TerminalProgress("worker", ID);
    const line = lines.tick({ elapsedMs: 6_000, toolCalls: 1, phase: `⚡ bash: echo \u001b[2J${"x".repeat(400)}` })!;
    expect(line).not.toContain("\u001b");
    expect(line.length).toBeLessThan(200);
  });

  it("is written only by the main pi in print or JSON mode, unless PI_SUBAGENT_PROGRESS silences it", () => {
    const written: string[] = [];
    const write = (text: string) => void written.push(text);
    expect(openStderrProgress("interactive", "worker", ID, { env: {}, write })).toBeUndefined();
    expect(openStderrProgress("rpc", "worker", ID, { env: {}, write })).toBeUndefined();
    expect(openStderrProgress("print", "worker", ID, { env: { PI_SUBAGENT_DEPTH: "1" }, write })).toBeUndefined();
    expect(openStderrProgress("json", "worker", ID, { env: { PI_SUBAGENT_PROGRESS: "0" }, write })).toBeUndefined();
    expect(written).toEqual([]);
    for (const value of ["0", "off", "false", "no", " OFF "])
      expect(progressLinesWanted({ PI_SUBAGENT_PROGRESS: value })).toBe(false);
    expect(progressLinesWanted({ PI_SUBAGENT_PROGRESS: "1" })).toBe(true);

    const run = openStderrProgress("json", "worker", ID, { env: {}, write })!;
    run.tick({
      taskId: ID,
      agent: "worker",
      phase: "⚡ read: a.md",
      elapsedMs: 7_000,
      usage: "",
      lastTool: "read: a.md",
      toolCalls: 2,
    });
    run.end({ status: "succeeded", durationMs: 8_000, usage: { ...emptyUsage(), turns: 2 } });
    expect(written).toEqual([
      `subagent worker started · task ${ID}\n`,
      `subagent worker …a7b57b · 00:07 · ⚡ read: a.md · 2 tool calls\n`,
      expect.stringMatching(new RegExp(`^subagent worker succeeded · 00:08 · 2 turns.* · task ${ID}\\n$`)),
    ]);
    const failing = openStderrProgress("print", "worker", ID, {
      env: {},
      write: () => {
        throw new Error("EPIPE");
      },
    });
    expect(() => failing?.end({ status: "failed", durationMs: 0, usage: emptyUsage() })).not.toThrow();
  });
});
