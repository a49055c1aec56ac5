/**
 * A task's worktree at its end (pure): commit, remove or leave it, and the report the person and the model read.
 */
import { stripTerminalControls } from "../shared/text.ts";
import { BRANCH_PREFIX, type WorktreeReport } from "./worktree.ts";

/*
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

function leftOnText(state: Pick<WorktreeState, "headRef" | "head">): string {
  if (state.headRef === undefined) return `a detached HEAD at ${state.head.slice(0, 12)}`;
  const name = state.headRef.replace(/^refs\/heads\//, "");
  return `branch ${name}`;
}

export function decideFinish(state: WorktreeState, site: { branch: string; base: string }): FinishDecision {
  if (!state.isWorktreeTop) {
    return {
      action: "leave",
      problem:
        "git no longer sees the folder as this worktree (its .git link is gone or was changed); nothing was committed",
    };
  }
  if (state.headRef !== `refs/heads/${site.branch}`) {
    const leftOn = leftOnText(state);
    return {
      action: "leave",
      leftOn,
      problem: `the subagent left the worktree on ${leftOn}, not on ${site.branch}; nothing was committed`,
    };
  }
  if (state.operation)
    return { action: "leave", problem: `${state.operation} is in progress in the worktree; nothing was committed` };
  const dirty = state.changedEntries > 0;
  const held = state.filesInSubmoduleFolders;
  const heldProblem =
    held.length > 0 ? `files git does not track are kept in submodule folders: ${held.join(", ")}` : undefined;
  if (dirty) return { action: "keep", commit: true, problem: heldProblem };
  if (state.head !== site.base) return { action: "keep", commit: false, problem: heldProblem };
  if (heldProblem) return { action: "keep", commit: false, problem: heldProblem };
  if (!state.tipHeldElsewhere) {
    return {
      action: "keep",
      commit: false,
      problem: `its commit ${state.head.slice(0, 12)} is on no other branch or tag, so the branch is kept`,
    };
  }
  return { action: "remove" };
}

/*
 * How a task's worktree reads in its envelope, its blocking result and `/subagent-result`: where the change
 * is (branch, folder, commit), what changed (a diff stat, or the file list when git gave none), and the git
 * commands to review, merge or drop it. Pure.
 */
function shortSha(sha: string): string {
  return sha.slice(0, 12);
}

function files(count: number): string {
  return `${count} ${count === 1 ? "file" : "files"}`;
}

function uncommittedText(report: WorktreeReport): string | undefined {
  return report.uncommitted ? `${files(report.uncommitted)} left uncommitted` : undefined;
}

function ignoredText(report: WorktreeReport): string {
  const named = report.ignoredRemoved ?? [];
  const more = (report.ignoredRemovedTotal ?? named.length) - named.length;
  return `ignored files went with it: ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

function countText(report: WorktreeReport): string {
  const total = report.filesTotal ?? report.files?.length;
  const committed = total === undefined ? "changes" : `${files(total)} changed`;
  return [committed, uncommittedText(report)].filter(Boolean).join(", ");
}

/** One line: `kept at <path> on branch <branch> (commit …, 2 files changed); not merged` or `removed (…)`. */
export function worktreeSummary(report: WorktreeReport): string {
  if (!report.kept) {
    const why =
      report.problem ??
      (report.ignoredRemovedTotal
        ? `the subagent changed nothing git tracks; ${ignoredText(report)}`
        : "the subagent changed nothing");
    return `removed (${why}; worktree and branch ${report.branch} deleted)`;
  }
  if (report.gitDirReplaced)
    return `kept as it is at ${report.path}; not merged into your branch; ${report.problem ?? "its git dir was replaced"}`;
  if (report.leftAsIs) {
    const counted = uncommittedText(report) ?? "no uncommitted file";
    return `kept as it is at ${report.path} (${counted}); not merged into your branch; ${report.problem ?? "nothing was committed"}`;
  }
  const commit = report.commit ? `commit ${report.commit}, ` : "";
  const problem = report.problem ? `; ${report.problem}` : "";
  return `kept at ${report.path} on branch ${report.branch} (${commit}${countText(report)}); not merged into your branch${problem}`;
}

/**
 * How to merge: the package's own merge first (it refuses a branch that would overwrite untracked or ignored
 * files or adds links out of the repository, and names files loaded later), git by hand last.
 */
function mergeLine(branch: string): string {
  const taskId = branch.startsWith(BRANCH_PREFIX) ? branch.slice(BRANCH_PREFIX.length) : branch;
  return `Merge: /subagent-worktrees merge ${taskId} or action "merge" (both check the branch first), or by hand: git merge ${branch}`;
}

/** The changes and how to act on them; empty when nothing was kept. */
export function worktreeChangesLines(report: WorktreeReport): string[] {
  if (!report.kept) return [];
  if (report.gitDirReplaced) return gitDirReplacedLines(report);
  if (report.leftAsIs) return leftAsIsLines(report);
  const lines = [`Changes on branch ${report.branch} since ${shortSha(report.base)} (your working tree is untouched):`];
  if (report.diffStat) lines.push(...report.diffStat.split("\n"));
  else if (report.files && report.files.length > 0) {
    for (const file of report.files) lines.push(` ${file.status}\t${file.path}`);
    const more = (report.filesTotal ?? report.files.length) - report.files.length;
    if (more > 0) lines.push(` ... and ${more} more`);
  } else lines.push(" (no committed difference)");
  const uncommitted = uncommittedText(report);
  if (uncommitted) lines.push(`Uncommitted: ${uncommitted} in the worktree (git -C ${report.path} status)`);
  for (const note of report.notes ?? []) lines.push(`Note: ${note}`);
  lines.push(
    `Review: git diff ${shortSha(report.base)} ${report.branch}`,
    mergeLine(report.branch),
    `Drop: git worktree remove --force ${report.path} && git branch -D ${report.branch}`,
  );
  // File names come from the child's work: none may drive the terminal that shows them.
  return lines.map((line) => stripTerminalControls(line));
}

/** A worktree left as the subagent left it: nothing was committed, so there is no branch diff to show. */
function leftAsIsLines(report: WorktreeReport): string[] {
  const lines = [
    `The worktree is left as the subagent left it${report.leftOn ? `, on ${report.leftOn}` : ""}: nothing was committed and nothing removed (your working tree is untouched).`,
  ];
  const uncommitted = uncommittedText(report);
  if (uncommitted) lines.push(`Uncommitted: ${uncommitted} in the worktree`);
  for (const note of report.notes ?? []) lines.push(`Note: ${note}`);
  lines.push(
    `Look: git -C ${report.path} status`,
    `Drop: git worktree remove --force ${report.path} && git branch -D ${report.branch}`,
  );
  return lines.map((line) => stripTerminalControls(line));
}

/** A worktree whose `.git` the subagent replaced: git there would run that repository's settings, so no git line is offered for it. */
function gitDirReplacedLines(report: WorktreeReport): string[] {
  return [
    `Do not run git in ${report.path} before you have looked at its .git: git would run what that repository's config names.`,
    `Drop: rm -rf ${report.path} && git worktree prune && git branch -D ${report.branch}`,
  ].map((line) => stripTerminalControls(line));
}

/** The block appended to a result the model reads (envelope or blocking result). */
export function worktreeBlock(report: WorktreeReport): string {
  const changes = worktreeChangesLines(report);
  return [`Worktree: ${stripTerminalControls(worktreeSummary(report))}`, ...changes].join("\n");
}
