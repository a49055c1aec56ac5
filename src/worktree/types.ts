/** Types of the git worktree isolation (`isolation: "worktree"`). */

export type Isolation = "none" | "worktree";
export const ISOLATIONS: readonly Isolation[] = ["none", "worktree"];

export function isIsolation(value: unknown): value is Isolation {
  return value === "none" || value === "worktree";
}

/** One changed file of a subagent branch, as `git diff --name-status` reports it (A, M, D, R100, ...). */
export interface ChangedFile {
  status: string;
  path: string;
}

/** What became of a task's worktree when the task ended; kept in the task's record. */
export interface WorktreeReport {
  /** `subagent/<task id>` */
  branch: string;
  /** The worktree folder (removed again when `kept` is false). */
  path: string;
  /** The commit the worktree started from (the project's HEAD at dispatch). */
  base: string;
  /** The repository's main working tree (where the person works). */
  repoRoot: string;
  /** False: the subagent changed nothing, and the worktree and branch were removed. */
  kept: boolean;
  /** The subagent branch's tip after the task (holding the child's changes), short form. */
  commit?: string;
  /** Changed files between base and the branch, at most MAX_LISTED_FILES of them. */
  files?: ChangedFile[];
  /** How many files changed in all (files may list fewer). */
  filesTotal?: number;
  /** `git diff --stat` between base and the branch, cut to a bounded number of lines. */
  diffStat?: string;
  /** Something went wrong while finishing, or something was kept on purpose; nothing is lost. */
  problem?: string;
  /**
   * True when the worktree was left exactly as the subagent left it and nothing was committed (it was not on
   * its own branch, or a merge or rebase was half done; `problem` says which).
   */
  leftAsIs?: boolean;
  /**
   * True when the worktree's `.git` no longer led to the git dir git made for it (the subagent replaced it): no
   * git command read the worktree; `problem` says where it leads.
   */
  gitDirReplaced?: boolean;
  /** Where the subagent left the worktree's HEAD when that was not its branch: `branch <name>` or `a detached HEAD at <sha12>`. */
  leftOn?: string;
  /** Ignored entries (build output, dependencies) removed with an unchanged worktree: at most 10 named. */
  ignoredRemoved?: string[];
  /** How many ignored entries were removed in all (ignoredRemoved may name fewer). */
  ignoredRemovedTotal?: number;
  /** Files (status entries) left uncommitted in the kept worktree, when some are. */
  uncommitted?: number;
  /** Said when the worktree was made (uncommitted changes it does not have). */
  notes?: string[];
}
