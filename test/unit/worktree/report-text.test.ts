import { describe, expect, it } from "vitest";
import {
  boundDiffStat,
  commitMessage,
  countStatusEntries,
  gitlinkPaths,
  parseNameStatus,
} from "../../../src/worktree/finish.ts";
import { worktreeBlock, worktreeChangesLines, worktreeSummary } from "../../../src/worktree/finish-decision.ts";
import type { WorktreeReport } from "../../../src/worktree/worktree.ts";

const KEPT: WorktreeReport = {
  branch: "subagent/t1",
  path: "/agent/subagent-worktrees/t1",
  base: "0123456789abcdef0123",
  repoRoot: "/repo",
  kept: true,
  commit: "fedcba987654",
  files: [{ status: "A", path: "hello.txt" }],
  filesTotal: 1,
  diffStat: " hello.txt | 1 +\n 1 file changed, 1 insertion(+)",
};

describe("worktree report texts", () => {
  it("a kept worktree: where, which branch and commit, how many files, not merged", () => {
    expect(worktreeSummary(KEPT)).toBe(
      "kept at /agent/subagent-worktrees/t1 on branch subagent/t1 (commit fedcba987654, 1 file changed); not merged into your branch",
    );
    expect(worktreeChangesLines(KEPT)).toEqual([
      "Changes on branch subagent/t1 since 0123456789ab (your working tree is untouched):",
      " hello.txt | 1 +",
      " 1 file changed, 1 insertion(+)",
      "Review: git diff 0123456789ab subagent/t1",
      'Merge: /subagent-worktrees merge t1 or action "merge" (both check the branch first), or by hand: git merge subagent/t1',
      "Drop: git worktree remove --force /agent/subagent-worktrees/t1 && git branch -D subagent/t1",
    ]);
  });

  it("a removed worktree says why, and lists no changes", () => {
    const removed = {
      ...KEPT,
      kept: false,
      commit: undefined,
      files: undefined,
      filesTotal: undefined,
      diffStat: undefined,
    };
    expect(worktreeSummary(removed)).toBe(
      "removed (the subagent changed nothing; worktree and branch subagent/t1 deleted)",
    );
    expect(worktreeChangesLines(removed)).toEqual([]);
    expect(worktreeBlock(removed)).toBe(
      "Worktree: removed (the subagent changed nothing; worktree and branch subagent/t1 deleted)",
    );
  });

  it("falls back to the file list when there is no diff stat, and says a problem", () => {
    const lines = worktreeChangesLines({
      ...KEPT,
      diffStat: undefined,
      filesTotal: 3,
      problem: "git commit failed: x",
    });
    expect(lines).toContain(" A\thello.txt");
    expect(lines).toContain(" ... and 2 more");
    expect(worktreeSummary({ ...KEPT, problem: "git commit failed: x" })).toMatch(/; git commit failed: x$/);
  });

  it("repeats the notes made when the worktree was taken", () => {
    const lines = worktreeChangesLines({
      ...KEPT,
      notes: ["the worktree starts from HEAD (0123456789ab): uncommitted changes in your working tree are not in it"],
    });
    expect(lines).toContain(
      "Note: the worktree starts from HEAD (0123456789ab): uncommitted changes in your working tree are not in it",
    );
  });

  it("a removed worktree names the ignored files that went with it, at most ten", () => {
    const removed = { ...KEPT, kept: false, ignoredRemoved: ["dist/", "node_modules/"], ignoredRemovedTotal: 12 };
    expect(worktreeSummary(removed)).toBe(
      "removed (the subagent changed nothing git tracks; ignored files went with it: dist/, node_modules/ and 10 more; worktree and branch subagent/t1 deleted)",
    );
  });

  it("counts files left uncommitted after a failed commit, beside the committed ones", () => {
    const report = { ...KEPT, uncommitted: 2, problem: "git add failed: x" };
    expect(worktreeSummary(report)).toBe(
      "kept at /agent/subagent-worktrees/t1 on branch subagent/t1 (commit fedcba987654, 1 file changed, 2 files left uncommitted); not merged into your branch; git add failed: x",
    );
    expect(worktreeChangesLines(report)).toContain(
      "Uncommitted: 2 files left uncommitted in the worktree (git -C /agent/subagent-worktrees/t1 status)",
    );
  });

  it("a worktree left as it is: no branch diff or merge advice, where HEAD was left, how to look", () => {
    const left: WorktreeReport = {
      ...KEPT,
      commit: undefined,
      files: undefined,
      filesTotal: undefined,
      diffStat: undefined,
      leftAsIs: true,
      leftOn: "branch main",
      uncommitted: 1,
      problem: "the subagent left the worktree on branch main, not on subagent/t1; nothing was committed",
    };
    expect(worktreeSummary(left)).toBe(
      "kept as it is at /agent/subagent-worktrees/t1 (1 file left uncommitted); not merged into your branch; the subagent left the worktree on branch main, not on subagent/t1; nothing was committed",
    );
    expect(worktreeChangesLines(left)).toEqual([
      "The worktree is left as the subagent left it, on branch main: nothing was committed and nothing removed (your working tree is untouched).",
      "Uncommitted: 1 file left uncommitted in the worktree",
      "Look: git -C /agent/subagent-worktrees/t1 status",
      "Drop: git worktree remove --force /agent/subagent-worktrees/t1 && git branch -D subagent/t1",
    ]);
  });

  it("strips terminal controls from file names", () => {
    const block = worktreeBlock({ ...KEPT, diffStat: " evil\u001b]0;title\u0007.txt | 1 +" });
    expect(block).not.toMatch(/\u001b|\u0007/);
  });
});

describe("git output parsing", () => {
  it("counts status entries (a rename's second path is not an entry) and finds gitlinks in the index", () => {
    expect(countStatusEntries(" M a.txt\0R  new.txt\0old.txt\0?? b c.txt\0")).toBe(3);
    expect(countStatusEntries("")).toBe(0);
    const index = [
      `100644 ${"a".repeat(40)} 0\tREADME.md`,
      `160000 ${"1".repeat(40)} 0\tvendor/lib`,
      `160000 ${"2".repeat(40)} 0\tdeps/x y`,
      "",
    ].join("\0");
    expect(gitlinkPaths(index)).toEqual(["vendor/lib", "deps/x y"]);
  });

  it("reads name-status -z, renames with both paths", () => {
    expect(parseNameStatus("A\0new.txt\0R100\0old.txt\0moved.txt\0D\0gone.txt\0")).toEqual([
      { status: "A", path: "new.txt" },
      { status: "R100", path: "old.txt -> moved.txt" },
      { status: "D", path: "gone.txt" },
    ]);
    expect(parseNameStatus("")).toEqual([]);
  });

  it("bounds a long diff stat and keeps its summary", () => {
    const lines = Array.from({ length: 100 }, (_, i) => ` f${i} | 1 +`);
    const stat = boundDiffStat([...lines, " 100 files changed, 100 insertions(+)"].join("\n"), 10);
    const out = stat.split("\n");
    expect(out).toHaveLength(11);
    expect(out[9]).toBe(" ... (91 more files)");
    expect(out[10]).toBe(" 100 files changed, 100 insertions(+)");
  });

  it("commit message names the agent and the task", () => {
    const message = commitMessage({
      taskId: "t1",
      agent: "coder",
      task: "Fix the bug\nin two lines",
      status: "succeeded",
    });
    expect(message.split("\n")[0]).toBe("subagent coder: Fix the bug in two lines");
    expect(message).toContain("task t1, succeeded");
  });
});
