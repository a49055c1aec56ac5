/**
 * What a task's worktree is (pure): its modes and types, where task worktrees live, and the refusals and notes about them.
 */
import { isAbsolute, join, relative, sep } from "node:path";
import { idForMessage, isTaskId } from "../shared/nesting.ts";

/* Types of the git worktree isolation (`isolation: "worktree"`). */
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

/*
 * Where the worktrees live: `<agent dir>/subagent-worktrees/<task id>/`, outside every project's working tree,
 * one folder per task, beside the task's session folder (`<agent dir>/subagent-sessions/<task id>/`), so a
 * person finds both by the task id and a test's own agent dir keeps its worktrees to itself.
 */
const WORKTREES_DIR_NAME = "subagent-worktrees";
export const BRANCH_PREFIX = "subagent/";

export function worktreesRoot(agentDir: string): string {
  return join(agentDir, WORKTREES_DIR_NAME);
}

/** A task's worktree folder. Throws for anything but a task id (an id never reaches the disk as a path). */
export function worktreePath(agentDir: string, taskId: string): string {
  if (!isTaskId(taskId)) throw new Error(`not a task id: ${JSON.stringify(idForMessage(taskId))}`);
  return join(worktreesRoot(agentDir), taskId);
}

export function branchName(taskId: string): string {
  return `${BRANCH_PREFIX}${taskId}`;
}

/** True when `folder` is `root` or inside it. */
export function isInside(root: string, folder: string): boolean {
  const rel = relative(root, folder);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/* What the person and the model read about worktree isolation: refusals, notes and the report lines. */
const WORKTREE_REFUSAL = "Cannot run the subagent in a worktree";

export function notARepositoryMessage(cwd: string): string {
  return `${WORKTREE_REFUSAL}: ${cwd} is not inside a git repository (isolation "worktree" needs one). Nothing was started. Dispatch it without isolation, or work inside a git project.`;
}

export function gitMissingMessage(): string {
  return `${WORKTREE_REFUSAL}: git is not installed (no git on PATH). Nothing was started.`;
}

export function notAWorkingTreeMessage(cwd: string): string {
  return `${WORKTREE_REFUSAL}: ${cwd} is inside a git directory or a bare repository, not a working tree. Nothing was started.`;
}

export function noCommitMessage(repoRoot: string): string {
  return `${WORKTREE_REFUSAL}: the repository at ${repoRoot} has no commit yet, so there is no HEAD to start a worktree from. Nothing was started. Commit once, or dispatch without isolation.`;
}

export function gitFailedMessage(step: string, detail: string): string {
  return `${WORKTREE_REFUSAL}: ${step} failed: ${detail}. Nothing was started.`;
}

export function resumeOutsideWorktreeMessage(taskId: string): string {
  return `${WORKTREE_REFUSAL}: session ${taskId} did not run in a worktree, and a resumed session always runs in the folder it started in. Nothing was started. Resume it without isolation, or dispatch a new task with isolation "worktree".`;
}

export function notTheTaskWorktreeMessage(path: string, repoRoot: string): string {
  return `${WORKTREE_REFUSAL}: ${path} is no longer a git worktree of ${repoRoot} (it was replaced, moved or unlinked from git), so the task cannot be resumed in it. Nothing was started and nothing there was changed. Look at the folder, move it away, and resume again.`;
}

export function uncommittedChangesNote(base: string): string {
  return `the worktree starts from HEAD (${base.slice(0, 12)}): uncommitted changes in your working tree are not in it`;
}

/** Appended to a worktree task's receipt, so the main agent knows where the work will be. */
export function worktreeReceiptNote(worktree: { branch: string; path: string; notes?: readonly string[] }): string {
  const notes = (worktree.notes ?? []).map((note) => `; ${note}`).join("");
  return ` (in git worktree ${worktree.path} on branch ${worktree.branch}${notes})`;
}
