/**
 * What to do with a task's worktree when the task ends, from what git says about it. Pure. The rule: commit
 * only onto the task's own branch, and remove only what holds nothing git could not give back. Anything else is
 * left as it is, with the reason.
 */

/** What git says about a worktree whose folder exists, read just before the decision. */
export interface WorktreeState {
  /** Git sees the folder as the top of a working tree (false: its `.git` link is gone or points elsewhere). */
  isWorktreeTop: boolean;
  /** The ref HEAD points at (`refs/heads/…`), or undefined when HEAD is detached. */
  headRef?: string;
  /** The commit HEAD is on. */
  head: string;
  /** A git operation left half done in the worktree ("a merge", "a rebase", ...), if any. */
  operation?: string;
  /** How many entries `git status` lists (modified, deleted, untracked, conflicted). */
  changedEntries: number;
  /** Submodule folders (gitlinks) that hold files: git status never looks inside them. */
  filesInSubmoduleFolders: readonly string[];
  /** The branch's tip is also on another branch, a tag or your HEAD, so deleting the branch loses no commit. */
  tipHeldElsewhere: boolean;
}

export type FinishDecision =
  /** Nothing to keep: remove the worktree and delete its branch. */
  | { action: "remove" }
  /** Keep the worktree and branch; `commit`: stage and commit the changes on the task's branch first. */
  | { action: "keep"; commit: boolean; problem?: string }
  /** Keep everything exactly as it is and commit nothing: the worktree is not (only) on the task's branch. */
  | { action: "leave"; problem: string; leftOn?: string };

export function leftOnText(state: Pick<WorktreeState, "headRef" | "head">): string {
  if (state.headRef === undefined) return `a detached HEAD at ${state.head.slice(0, 12)}`;
  const name = state.headRef.replace(/^refs\/heads\//, "");
  return `branch ${name}`;
}

export function decideFinish(state: WorktreeState, site: { branch: string; base: string }): FinishDecision {
  if (!state.isWorktreeTop) {
    return { action: "leave", problem: "git no longer sees the folder as this worktree (its .git link is gone or was changed); nothing was committed" };
  }
  if (state.headRef !== `refs/heads/${site.branch}`) {
    const leftOn = leftOnText(state);
    return { action: "leave", leftOn, problem: `the subagent left the worktree on ${leftOn}, not on ${site.branch}; nothing was committed` };
  }
  if (state.operation) return { action: "leave", problem: `${state.operation} is in progress in the worktree; nothing was committed` };
  const dirty = state.changedEntries > 0;
  const held = state.filesInSubmoduleFolders;
  const heldProblem = held.length > 0 ? `files git does not track are kept in submodule folders: ${held.join(", ")}` : undefined;
  if (dirty) return { action: "keep", commit: true, problem: heldProblem };
  if (state.head !== site.base) return { action: "keep", commit: false, problem: heldProblem };
  if (heldProblem) return { action: "keep", commit: false, problem: heldProblem };
  if (!state.tipHeldElsewhere) {
    return { action: "keep", commit: false, problem: `its commit ${state.head.slice(0, 12)} is on no other branch or tag, so the branch is kept` };
  }
  return { action: "remove" };
}
