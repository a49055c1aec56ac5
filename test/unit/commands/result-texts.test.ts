/** Where a worktree report shows up: the envelope, the blocking result and /subagent-result. */
import { describe, expect, it } from "vitest";
import { resultPlainText } from "../../../src/commands/task-commands.ts";
import { buildEnvelope } from "../../../src/delivery/envelope.ts";
import { emptyUsage } from "../../../src/shared/text.ts";
import type { TaskRecord } from "../../../src/records/record.ts";
import { syncResultText } from "../../../src/tool/run-sync.ts";
import type { WorktreeReport } from "../../../src/worktree/worktree.ts";

const ID = "01912345-6789-7abc-8def-0123456789ab";
const LIMITS = { activityTimeoutMs: 600_000, hardTimeoutMs: 0 };
const KEPT: WorktreeReport = {
  branch: `subagent/${ID}`,
  path: `/agent/subagent-worktrees/${ID}`,
  base: "0123456789abcdef",
  repoRoot: "/work",
  kept: true,
  commit: "fedcba987654",
  files: [{ status: "A", path: "hello.txt" }],
  filesTotal: 1,
  diffStat: " hello.txt | 1 +\n 1 file changed, 1 insertion(+)",
};

function record(fields: Partial<TaskRecord> = {}): TaskRecord {
  return {
    version: 1,
    taskId: ID,
    agent: "coder",
    task: "Add hello.",
    mode: "async",
    status: "succeeded",
    exitCode: 0,
    stopReason: "stop",
    usage: emptyUsage(),
    durationMs: 1000,
    dispatchedAt: 0,
    startedAt: 0,
    finishedAt: 1000,
    output: "Wrote hello.txt.",
    sessionFile: `/agent/subagent-sessions/${ID}/session.jsonl`,
    cwd: `/agent/subagent-worktrees/${ID}`,
    delivered: false,
    worktree: KEPT,
    ...fields,
  };
}

const SUMMARY = `kept at /agent/subagent-worktrees/${ID} on branch subagent/${ID} (commit fedcba987654, 1 file changed); not merged into your branch`;

describe("a worktree report in the results", () => {
  it("the envelope: a metadata line and the changes before the --- line; the output after it, unchanged", () => {
    const envelope = buildEnvelope(record(), [], LIMITS);
    const [head = "", body] = envelope.split("\n---\n");
    expect(body).toBe("Wrote hello.txt.");
    expect(head).toContain(`- Session: ${ID}\n- Worktree: ${SUMMARY}\n`);
    expect(head).toContain(
      `No other tasks were in flight when this task ended.\n\nChanges on branch subagent/${ID} since 0123456789ab (your working tree is untouched):\n hello.txt | 1 +\n`,
    );
    expect(
      head.endsWith(
        `Drop: git worktree remove --force /agent/subagent-worktrees/${ID} && git branch -D subagent/${ID}\n`,
      ),
    ).toBe(true);
  });

  it("the envelope of an unchanged worktree has the metadata line only", () => {
    const removed: WorktreeReport = {
      ...KEPT,
      kept: false,
      commit: undefined,
      files: undefined,
      filesTotal: undefined,
      diffStat: undefined,
    };
    const envelope = buildEnvelope(record({ worktree: removed }), [], LIMITS);
    expect(envelope).toContain(
      `- Worktree: removed (the subagent changed nothing; worktree and branch subagent/${ID} deleted)\n\nNo other tasks`,
    );
    expect(envelope).not.toContain("Changes on branch");
  });

  it("the blocking result: the answer, the session line, then the worktree block (also when it failed)", () => {
    const text = syncResultText(record({ mode: "sync" }), LIMITS);
    expect(
      text.startsWith(`Wrote hello.txt.\n\n[subagent session: ${ID}]\n\nWorktree: ${SUMMARY}\nChanges on branch`),
    ).toBe(true);
    const failed = syncResultText(record({ mode: "sync", status: "failed", errorMessage: "boom" }), LIMITS);
    expect(failed).toContain(`[subagent session: ${ID}]\n\nWorktree: ${SUMMARY}`);
  });

  it("/subagent-result: among the metadata, before the --- line", () => {
    const text = resultPlainText(record());
    const [meta = "", output] = text.split("\n---\n");
    expect(output).toBe("Wrote hello.txt.\n");
    expect(meta).toContain(`Worktree: ${SUMMARY}\nChanges on branch subagent/${ID}`);
    expect(meta).toContain(
      `Merge: /subagent-worktrees merge ${ID} or action "merge" (both check the branch first), or by hand: git merge subagent/${ID}`,
    );
  });

  it("no worktree, no worktree lines", () => {
    const plain = record({ worktree: undefined });
    expect(buildEnvelope(plain, [], LIMITS)).not.toContain("Worktree");
    expect(syncResultText(plain, LIMITS)).not.toContain("Worktree");
    expect(resultPlainText(plain)).not.toContain("Worktree");
  });
});

describe("usage notes and skipped output in the results (issue 28, items 8 and 9)", () => {
  it("/subagent-result shows the usage note and the skipped-output count with its first line", () => {
    const text = resultPlainText(record({ usageNote: "NOTE", skippedOutput: { lines: 1234567, sample: ["y", "y"] } }));
    expect(text).toContain("\nUsage note: NOTE\n");
    expect(text).toContain(
      '\nSkipped output: 1234567 lines of the subagent\'s stdout that were not pi events (the first: "y")\n',
    );
  });

  it("the envelope carries the usage note after the usage line", () => {
    const envelope = buildEnvelope(record({ mode: "async", usageNote: "NOTE" }), [], LIMITS);
    expect(envelope).toMatch(/- Duration: .* · Usage: .*\n- Usage note: NOTE\n/);
  });
});
