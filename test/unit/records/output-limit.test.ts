/**
 * A runaway answer reaches the main agent cut to the limit, with the path of the whole text and how much was
 * left out; /subagent-result still shows everything.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resultPlainText } from "../../../src/commands/task-commands.ts";
import { buildEnvelope } from "../../../src/delivery/envelope.ts";
import {
  detailsFromRecord,
  DEFAULT_MAX_OUTPUT_CHARS,
  headOf,
  limitedOutput,
  MAX_OUTPUT_ENV,
  readMaxOutputChars,
  saveLongOutput,
} from "../../../src/records/record-store.ts";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import type { TaskRecord } from "../../../src/records/record.ts";
import { syncResultText } from "../../../src/tool/run-sync.ts";

let agentDir: string;
beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), "output-limit-"));
});
afterEach(() => rmSync(agentDir, { recursive: true, force: true }));

function record(output: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    version: 1,
    taskId: newTaskId(),
    agent: "worker",
    task: "Write a lot.",
    mode: "async",
    status: "succeeded",
    exitCode: 0,
    usage: { turns: 1, input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
    durationMs: 1000,
    dispatchedAt: 0,
    finishedAt: 1000,
    output,
    sessionFile: "/s/session.jsonl",
    cwd: "/",
    delivered: false,
    ...overrides,
  };
}

const LIMITS = { activityTimeoutMs: 600_000, hardTimeoutMs: 0 };
const FIVE_MB = 5 * 1024 * 1024;

describe("a 5 MB answer", () => {
  it("is saved whole beside the record, and the envelope, the tool result and the details carry the limit plus a note", () => {
    const output = `BEGIN ${"x".repeat(FIVE_MB)} END`;
    const long = record(output);
    saveLongOutput(agentDir, long, DEFAULT_MAX_OUTPUT_CHARS);
    const file = join(agentDir, "subagent-sessions", long.taskId, "output.md");
    expect(long.fullOutputFile).toBe(file);
    expect(readFileSync(file, "utf8")).toBe(output);

    const note = `[Output cut: showing the first 50000 of ${output.length} characters (${output.length - 50_000} omitted). The full output is saved in ${file}; read it from there only if you need the rest.]`;
    const envelope = buildEnvelope(long, [], LIMITS);
    expect(envelope.length).toBeLessThan(55_000);
    expect(envelope).toContain("BEGIN xxx");
    expect(envelope).not.toContain("END");
    expect(envelope.endsWith(note)).toBe(true);

    const syncText = syncResultText({ ...long, mode: "sync" }, LIMITS);
    expect(syncText.length).toBeLessThan(55_000);
    expect(syncText).toContain(`${note}\n\n[subagent session: ${long.taskId}]`);

    const failed = syncResultText({ ...long, status: "failed", errorMessage: "boom" }, LIMITS);
    expect(failed.length).toBeLessThan(55_000);
    expect(failed).toContain(note);

    expect(detailsFromRecord(long).output.length).toBeLessThan(55_000);
    // The record keeps everything for /subagent-result.
    expect(resultPlainText(long)).toContain(" END");
  });

  it("an answer within the limit is untouched and nothing is saved", () => {
    const short = record("short answer");
    saveLongOutput(agentDir, short, DEFAULT_MAX_OUTPUT_CHARS);
    expect(short.fullOutputFile).toBeUndefined();
    expect(limitedOutput(short)).toBe("short answer");
    expect(existsSync(join(agentDir, "subagent-sessions", short.taskId))).toBe(false);
    expect(buildEnvelope(short, [], LIMITS).endsWith("---\nshort answer")).toBe(true);
  });

  it("never splits a surrogate pair at the cut", () => {
    expect(headOf("ab😀cd", 3)).toBe("ab");
    expect(headOf("ab😀cd", 4)).toBe("ab😀");
  });
});

describe(MAX_OUTPUT_ENV, () => {
  it("sets the limit; nonsense falls back to the default, a tiny value is raised to 1000", () => {
    expect(readMaxOutputChars({})).toBe(50_000);
    expect(readMaxOutputChars({ [MAX_OUTPUT_ENV]: "200000" })).toBe(200_000);
    expect(readMaxOutputChars({ [MAX_OUTPUT_ENV]: "abc" })).toBe(50_000);
    expect(readMaxOutputChars({ [MAX_OUTPUT_ENV]: "-5" })).toBe(50_000);
    expect(readMaxOutputChars({ [MAX_OUTPUT_ENV]: "10" })).toBe(1000);
  });
});
