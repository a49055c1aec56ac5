/**
 * The worktrees of ours in a repository (those under `<agent dir>/subagent-worktrees/`), as
 * `git worktree list --porcelain` reports them, and their removal. Used by `/subagent-worktrees`.
 */
import { basename } from "node:path";
import { isTaskId } from "../../core/tasks/task-id.ts";
import { runGit } from "./git.ts";
import { BRANCH_PREFIX, isInside, worktreesRoot } from "../../core/worktree/paths.ts";

export interface ListedWorktree {
  taskId: string;
  path: string;
  /**
   * `subagent/<task id>`, or undefined when the worktree's HEAD is detached or on another
   * branch.
   */
  branch?: string;
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
    let prunable = false;
    for (const line of block.split("\n")) {
      if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
      else if (line.startsWith("branch refs/heads/")) branch = line.slice("branch refs/heads/".length);
      else if (line.startsWith("HEAD ")) head = line.slice("HEAD ".length);
      else if (line === "prunable" || line.startsWith("prunable ")) prunable = true;
    }
    if (!path || !isInside(root, path) || path === root) continue;
    const taskId = basename(path);
    if (!isTaskId(taskId)) continue;
    listed.push({ taskId, path, branch: branch?.startsWith(BRANCH_PREFIX) ? branch : undefined, head, prunable });
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

/** Removes a worktree and its subagent branch; returns what went wrong, or undefined. */
export function removeListedWorktree(cwd: string, worktree: ListedWorktree): string | undefined {
  const removed = runGit(cwd, ["worktree", "remove", "--force", worktree.path]);
  runGit(cwd, ["worktree", "prune"]);
  if (!removed.ok && !worktree.prunable) return `git worktree remove failed: ${removed.message}`;
  if (!worktree.branch) return undefined;
  const deleted = runGit(cwd, ["branch", "-D", worktree.branch]);
  return deleted.ok ? undefined : `git branch -D ${worktree.branch} failed: ${deleted.message}`;
}
