/**
 * How a task's worktree reads in its envelope, its blocking result and `/subagent-result`: where the change
 * is (branch, folder, commit), what changed (a diff stat, or the file list when git gave none), and the git
 * commands to review, merge or drop it. Pure.
 */
import { stripTerminalControls } from "../shared/terminal-text.ts";
import type { WorktreeReport } from "./types.ts";
import { BRANCH_PREFIX } from "./paths.ts";

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
    const why = report.problem ?? (report.ignoredRemovedTotal ? `the subagent changed nothing git tracks; ${ignoredText(report)}` : "the subagent changed nothing");
    return `removed (${why}; worktree and branch ${report.branch} deleted)`;
  }
  if (report.gitDirReplaced) return `kept as it is at ${report.path}; not merged into your branch; ${report.problem ?? "its git dir was replaced"}`;
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
