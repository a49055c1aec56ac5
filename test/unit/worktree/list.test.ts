import { describe, expect, it } from "vitest";
import { parseWorktreeList } from "../../../src/worktree/lease.ts";

const ID = "01900000-0000-7000-8000-00000000abcd";
const ROOT = "/agent/subagent-worktrees";

describe("parseWorktreeList", () => {
  it("keeps only our worktrees (under the root, named by a task id), with branch and prunable state", () => {
    const porcelain = [
      "worktree /repo\nHEAD aaa\nbranch refs/heads/main",
      `worktree ${ROOT}/${ID}\nHEAD bbb\nbranch refs/heads/subagent/${ID}`,
      `worktree ${ROOT}/not-an-id\nHEAD ccc\nbranch refs/heads/x`,
      "worktree /elsewhere/wt\nHEAD ddd\ndetached",
      `worktree ${ROOT}/01900000-0000-7000-8000-00000000ef01\nHEAD eee\ndetached\nprunable gitdir file points to non-existent location`,
      `worktree ${ROOT}/01900000-0000-7000-8000-000000000002\nHEAD fff\nbranch refs/heads/feature`,
      `worktree ${ROOT}/01900000-0000-7000-8000-000000000003\nHEAD 999\nbranch refs/heads/subagent/${ID}`,
      "",
    ].join("\n\n");
    expect(parseWorktreeList(porcelain, ROOT)).toEqual([
      { taskId: ID, path: `${ROOT}/${ID}`, branch: `subagent/${ID}`, head: "bbb", prunable: false },
      {
        taskId: "01900000-0000-7000-8000-00000000ef01",
        path: `${ROOT}/01900000-0000-7000-8000-00000000ef01`,
        branch: undefined,
        head: "eee",
        prunable: true,
        leftOn: "a detached HEAD at eee",
      },
      // The subagent switched these: to the person's branch, and to another task's branch.
      {
        taskId: "01900000-0000-7000-8000-000000000002",
        path: `${ROOT}/01900000-0000-7000-8000-000000000002`,
        branch: undefined,
        head: "fff",
        prunable: false,
        leftOn: "branch feature",
      },
      {
        taskId: "01900000-0000-7000-8000-000000000003",
        path: `${ROOT}/01900000-0000-7000-8000-000000000003`,
        branch: undefined,
        head: "999",
        prunable: false,
        leftOn: `branch subagent/${ID}`,
      },
    ]);
  });
});
