/**
 * The worktrees of ours in a repository (those under `<agent dir>/subagent-worktrees/`), as
 * `git worktree list --porcelain` reports them, and their removal. Used by `/subagent-worktrees`.
 */
import { basename } from "node:path";
import { isTaskId } from "../shared/task-id.ts";
import { runGit } from "./git.ts";
import { branchName, isInside, worktreesRoot } from "./paths.ts";

export interface ListedWorktree {
  taskId: string;
  path: string;
  /** `subagent/<task id>`, or undefined when the worktree's HEAD is detached or on another branch. */
  branch?: string;
  /**
   * Where the worktree's HEAD is when it is not on `subagent/<task id>`: `branch <name>` (the subagent
   * switched it) or `a detached HEAD at <sha12>`.
   */
  leftOn?: string;
  head?: string;
  /** The folder is gone but git still has it registered (`git worktree prune` forgets it). */
  prunable: boolean;
}

/** Parses `git worktree list --porcelain` and keeps the entries under our worktrees folder. Pure. */
export function parseWorktreeList(porcelain: string, root: string): ListedWorktree[] {
  const listed: ListedWorktree[] = [];
  for (const block of porcelain.split(/\n\n+/)) {
    let path: string | undefined;
    let branch: string | undefined;
    let head: string | undefined;
    let detached = false;
    let prunable = false;
    for (const line of block.split("\n")) {
      if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
      else if (line.startsWith("branch refs/heads/")) branch = line.slice("branch refs/heads/".length);
      else if (line.startsWith("HEAD ")) head = line.slice("HEAD ".length);
      else if (line === "detached") detached = true;
      else if (line === "prunable" || line.startsWith("prunable ")) prunable = true;
    }
    if (!path || !isInside(root, path) || path === root) continue;
    const taskId = basename(path);
    if (!isTaskId(taskId)) continue;
    const own = branchName(taskId);
    const entry: ListedWorktree = { taskId, path, branch: branch === own ? own : undefined, head, prunable };
    if (branch !== undefined && branch !== own) entry.leftOn = `branch ${branch}`;
    else if (detached && head) entry.leftOn = `a detached HEAD at ${head.slice(0, 12)}`;
    listed.push(entry);
  }
  return listed;
}

export type WorktreeListing = { ok: true; worktrees: ListedWorktree[] } | { ok: false; message: string };

export function listOurWorktrees(cwd: string, agentDir: string): WorktreeListing {
  const listed = runGit(cwd, ["worktree", "list", "--porcelain"]);
  if (!listed.ok) {
    return { ok: false, message: listed.missing ? "git is not installed (no git on PATH)." : `Not in a git repository (${cwd}): there are no subagent worktrees to list here.` };
  }
  return { ok: true, worktrees: parseWorktreeList(listed.stdout, worktreesRoot(agentDir)) };
}

/** The task's own branch, `subagent/<task id>`, when it exists (also when the worktree's HEAD left it). */
export function taskBranchOf(cwd: string, worktree: ListedWorktree): string | undefined {
  const own = branchName(worktree.taskId);
  return runGit(cwd, ["rev-parse", "--verify", "-q", `refs/heads/${own}`]).ok ? own : undefined;
}

export type Removal = { ok: true; deletedBranch?: string } | { ok: false; problem: string };

/**
 * Removes a worktree and the task's own branch, `subagent/<task id>`; never another branch, even when the
 * subagent switched the worktree to it.
 */
export function removeListedWorktree(cwd: string, worktree: ListedWorktree): Removal {
  const removed = runGit(cwd, ["worktree", "remove", "--force", worktree.path]);
  runGit(cwd, ["worktree", "prune"]);
  if (!removed.ok && !worktree.prunable) return { ok: false, problem: `git worktree remove failed: ${removed.message}` };
  const branch = taskBranchOf(cwd, worktree);
  if (!branch) return { ok: true };
  const deleted = runGit(cwd, ["branch", "-D", branch]);
  return deleted.ok ? { ok: true, deletedBranch: branch } : { ok: false, problem: `git branch -D ${branch} failed: ${deleted.message}` };
}
