import { describe, expect, it } from "vitest";
import { decideFinish, type WorktreeState } from "../../../src/worktree/finish-decision.ts";

const BASE = "b".repeat(40);
const SITE = { branch: "subagent/t1", base: BASE };
const CLEAN: WorktreeState = {
  isWorktreeTop: true,
  headRef: "refs/heads/subagent/t1",
  head: BASE,
  changedEntries: 0,
  filesInSubmoduleFolders: [],
  tipHeldElsewhere: true,
};

describe("decideFinish", () => {
  it("removes a worktree on its own branch where nothing changed and the commit is held elsewhere", () => {
    expect(decideFinish(CLEAN, SITE)).toEqual({ action: "remove" });
  });

  it("commits changes only on the task's own branch", () => {
    expect(decideFinish({ ...CLEAN, changedEntries: 2 }, SITE)).toEqual({
      action: "keep",
      commit: true,
      problem: undefined,
    });
    expect(decideFinish({ ...CLEAN, head: "c".repeat(40) }, SITE)).toEqual({
      action: "keep",
      commit: false,
      problem: undefined,
    });
  });

  it("leaves everything as it is when HEAD is on another branch or detached, naming where", () => {
    expect(decideFinish({ ...CLEAN, headRef: "refs/heads/main", changedEntries: 1 }, SITE)).toEqual({
      action: "leave",
      leftOn: "branch main",
      problem: "the subagent left the worktree on branch main, not on subagent/t1; nothing was committed",
    });
    // A branch whose name only starts like the task's is another branch.
    expect(decideFinish({ ...CLEAN, headRef: "refs/heads/subagent/t1-x" }, SITE)).toMatchObject({
      action: "leave",
      leftOn: "branch subagent/t1-x",
    });
    expect(decideFinish({ ...CLEAN, headRef: undefined, head: "d".repeat(40) }, SITE)).toMatchObject({
      action: "leave",
      leftOn: `a detached HEAD at ${"d".repeat(12)}`,
    });
  });

  it("leaves a half-done merge or rebase, and a folder git no longer sees as the worktree", () => {
    expect(decideFinish({ ...CLEAN, operation: "a rebase", changedEntries: 3 }, SITE)).toEqual({
      action: "leave",
      problem: "a rebase is in progress in the worktree; nothing was committed",
    });
    expect(decideFinish({ ...CLEAN, isWorktreeTop: false, changedEntries: 3 }, SITE)).toMatchObject({
      action: "leave",
    });
  });

  it("keeps a worktree with files inside submodule folders, committing what git sees", () => {
    const held = { ...CLEAN, filesInSubmoduleFolders: ["vendor/lib"] };
    const problem = "files git does not track are kept in submodule folders: vendor/lib";
    expect(decideFinish(held, SITE)).toEqual({ action: "keep", commit: false, problem });
    expect(decideFinish({ ...held, changedEntries: 1 }, SITE)).toEqual({ action: "keep", commit: true, problem });
  });

  it("keeps the branch when its commit is on no other branch or tag", () => {
    expect(decideFinish({ ...CLEAN, tipHeldElsewhere: false }, SITE)).toEqual({
      action: "keep",
      commit: false,
      problem: `its commit ${BASE.slice(0, 12)} is on no other branch or tag, so the branch is kept`,
    });
  });
});
