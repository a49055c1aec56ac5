/** What the person and the model read about worktree isolation: refusals, notes and the report lines. */

export const WORKTREE_REFUSAL = "Cannot run the subagent in a worktree";

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
