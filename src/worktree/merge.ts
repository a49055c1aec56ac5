/**
 * Bringing a kept task branch home: `git merge --no-ff subagent/<id>` into the person's current branch, only
 * when their working tree has no uncommitted change to a tracked file and the task's worktree is clean and on
 * its own branch. A merge that stops (a conflict, or anything else) is aborted, so the tree is exactly as it was;
 * nothing is ever resolved automatically. A merged worktree and its branch are removed. Every git call is a safe
 * one (runGit); the worktree's own git dir is checked before git reads it; a branch that would overwrite the
 * person's untracked or ignored files, or adds links leading outside the repository, is refused
 * (src/worktree/merge-checks.ts).
 */
import { existsSync } from "node:fs";
import { runGit } from "./git.ts";
import { checkWorktreeGitDir, gitDirReplacedText } from "./git-dir-check.ts";
import { inspectBranch } from "./merge-checks.ts";
import { removeListedWorktree } from "./list.ts";
import type { ListedWorktree } from "./list.ts";

export type MergeRefusal =
  | { kind: "detached" }
  | { kind: "dirty"; files: string[] }
  | { kind: "not-on-branch"; leftOn?: string }
  | { kind: "worktree-dirty"; files: string[] }
  | { kind: "nothing"; into: string }
  | { kind: "git-dir-replaced"; problem: string }
  | { kind: "would-overwrite"; files: string[] }
  | { kind: "outside-links"; links: string[] }
  | { kind: "unchecked"; message: string };

export interface MergePlan {
  branch: string;
  into: string;
  /** `M src/a.ts`: what the branch changes against the merge base. */
  files: string[];
  /** `A .envrc`: files among them that pi, coding agents, git or the shell load or run later. */
  loadedLater: string[];
}

export type MergeOutcome =
  | { kind: "merged"; branch: string; into: string; commit: string; files: string[]; loadedLater: string[]; removed: boolean; removeProblem?: string }
  | { kind: "conflict"; branch: string; into: string; files: string[]; restored: boolean }
  | { kind: "failed"; branch: string; into: string; message: string; restored: boolean }
  | MergeRefusal;

const lines = (text: string) => text.split("\n").map((line) => line.trimEnd()).filter(Boolean);

/** `M\tpath` from git's name-status as `M path`. */
const nameStatus = (text: string) => lines(text).map((line) => line.replace(/\t/g, " "));

function trackedChanges(cwd: string): string[] {
  const status = runGit(cwd, ["status", "--porcelain", "--untracked-files=no"]);
  return status.ok ? lines(status.stdout) : ["(git status failed)"];
}

function head(cwd: string): string | undefined {
  const result = runGit(cwd, ["rev-parse", "HEAD"]);
  return result.ok ? result.stdout.trim() : undefined;
}

/** What a merge would do, or why it may not run: the checks both the command and the tool's first step make. */
export function planMerge(cwd: string, worktree: ListedWorktree): { ok: true; plan: MergePlan } | { ok: false; refusal: MergeRefusal } {
  if (!worktree.branch) return { ok: false, refusal: { kind: "not-on-branch", leftOn: worktree.leftOn } };
  const current = runGit(cwd, ["symbolic-ref", "-q", "--short", "HEAD"]);
  if (!current.ok || !current.stdout.trim()) return { ok: false, refusal: { kind: "detached" } };
  const into = current.stdout.trim();
  const dirty = trackedChanges(cwd);
  if (dirty.length > 0) return { ok: false, refusal: { kind: "dirty", files: dirty } };
  if (existsSync(worktree.path)) {
    // Its status reads the worktree's index: only through the git dir git made for it.
    const gitDir = checkWorktreeGitDir(cwd, worktree.path);
    if (!gitDir.ok) return { ok: false, refusal: { kind: "git-dir-replaced", problem: gitDirReplacedText(worktree.path, gitDir) } };
    const inWorktree = runGit(worktree.path, ["status", "--porcelain"]);
    const files = inWorktree.ok ? lines(inWorktree.stdout) : [];
    if (files.length > 0) return { ok: false, refusal: { kind: "worktree-dirty", files } };
  }
  const ahead = runGit(cwd, ["rev-list", "--count", `HEAD..${worktree.branch}`]);
  if (ahead.ok && ahead.stdout.trim() === "0") return { ok: false, refusal: { kind: "nothing", into } };
  const inspected = inspectBranch(cwd, worktree.branch);
  if (!inspected.ok) return { ok: false, refusal: { kind: "unchecked", message: inspected.message } };
  const { overwrites, outsideLinks, loadedLater } = inspected.inspection;
  if (overwrites.length > 0) return { ok: false, refusal: { kind: "would-overwrite", files: overwrites } };
  if (outsideLinks.length > 0) return { ok: false, refusal: { kind: "outside-links", links: outsideLinks } };
  const diff = runGit(cwd, ["diff", "--no-ext-diff", "--no-textconv", "--name-status", `HEAD...${worktree.branch}`]);
  return { ok: true, plan: { branch: worktree.branch, into, files: diff.ok ? nameStatus(diff.stdout) : [], loadedLater } };
}

export function mergeTaskWorktree(cwd: string, worktree: ListedWorktree, message: string): MergeOutcome {
  const planned = planMerge(cwd, worktree);
  if (!planned.ok) return planned.refusal;
  const { branch, into } = planned.plan;
  const before = head(cwd);
  const merged = runGit(cwd, ["merge", "--no-ff", "--no-edit", "--no-stat", "-m", message, branch]);
  if (merged.ok) {
    const commit = head(cwd) ?? "";
    const diff = runGit(cwd, ["diff", "--no-ext-diff", "--no-textconv", "--name-status", `${commit}^1`, commit]);
    const removal = removeListedWorktree(cwd, worktree);
    const files = diff.ok ? nameStatus(diff.stdout) : [];
    return { kind: "merged", branch, into, commit, files, loadedLater: planned.plan.loadedLater, removed: removal.ok, ...(removal.ok ? {} : { removeProblem: removal.problem }) };
  }
  const conflicts = runGit(cwd, ["diff", "--name-only", "--diff-filter=U"]);
  const files = conflicts.ok ? lines(conflicts.stdout) : [];
  // A merge that stopped half way is undone; one git refused outright (say, untracked files in the way) left nothing.
  if (runGit(cwd, ["rev-parse", "-q", "--verify", "MERGE_HEAD"]).ok) runGit(cwd, ["merge", "--abort"]);
  const restored = head(cwd) === before && trackedChanges(cwd).length === 0;
  if (files.length > 0) return { kind: "conflict", branch, into, files, restored };
  return { kind: "failed", branch, into, message: merged.message, restored };
}
