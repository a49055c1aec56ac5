// @ts-check
/**
 * The worktrees of ours in a repository (those under `<agent dir>/subagent-worktrees/`), as
 * `git worktree list --porcelain` reports them, and their removal. Used by `/subagent-worktrees`.
 */
import { basename } from "node:path";
import { isTaskId } from "../tasks/task-id.js";
import { runGit } from "./git.js";
import { BRANCH_PREFIX, isInside, worktreesRoot } from "./paths.js";

/**
 * @typedef {object} ListedWorktree
 * @property {string} taskId
 * @property {string} path
 * @property {string} [branch] `subagent/<task id>`, or undefined when the worktree's HEAD is detached or on another
 *   branch.
 * @property {string} [head]
 * @property {boolean} prunable The folder is gone but git still has it registered (`git worktree prune` forgets it).
 */

/**
 * Parses `git worktree list --porcelain` and keeps the entries under our worktrees folder. Pure.
 * @param {string} porcelain
 * @param {string} root
 * @returns {ListedWorktree[]}
 */
export function parseWorktreeList(porcelain, root) {
  /** @type {ListedWorktree[]} */
  const listed = [];
  for (const block of porcelain.split(/\n\n+/)) {
    /** @type {string | undefined} */
    let path;
    /** @type {string | undefined} */
    let branch;
    /** @type {string | undefined} */
    let head;
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

/** @typedef {{ ok: true; worktrees: ListedWorktree[] } | { ok: false; message: string }} WorktreeListing */

/**
 * @param {string} cwd
 * @param {string} agentDir
 * @returns {WorktreeListing}
 */
export function listOurWorktrees(cwd, agentDir) {
  const listed = runGit(cwd, ["worktree", "list", "--porcelain"]);
  if (!listed.ok) {
    return { ok: false, message: listed.missing ? "git is not installed (no git on PATH)." : `Not in a git repository (${cwd}): there are no subagent worktrees to list here.` };
  }
  return { ok: true, worktrees: parseWorktreeList(listed.stdout, worktreesRoot(agentDir)) };
}

/**
 * Removes a worktree and its subagent branch; returns what went wrong, or undefined.
 * @param {string} cwd
 * @param {ListedWorktree} worktree
 * @returns {string | undefined}
 */
export function removeListedWorktree(cwd, worktree) {
  const removed = runGit(cwd, ["worktree", "remove", "--force", worktree.path]);
  runGit(cwd, ["worktree", "prune"]);
  if (!removed.ok && !worktree.prunable) return `git worktree remove failed: ${removed.message}`;
  if (!worktree.branch) return undefined;
  const deleted = runGit(cwd, ["branch", "-D", worktree.branch]);
  return deleted.ok ? undefined : `git branch -D ${worktree.branch} failed: ${deleted.message}`;
}
