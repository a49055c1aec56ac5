/**
 * A task's branch merged into the current one: the refusals and flags before a merge, and the merge or its abort.
 */
import type { MergeRefusalText } from "./merge-texts.ts";
import { lstatSync, existsSync } from "node:fs";
import { join } from "node:path";
import {
  broughtEntries,
  isLoadedLater,
  linkLeavesRepository,
  parentFolders,
  parseRawDiff,
  SYMLINK_MODE,
} from "./merge-texts.ts";
import { runGit, checkWorktreeGitDir, gitDirReplacedText } from "./git.ts";
import { removeListedWorktree, type ListedWorktree } from "./lease.ts";

/*
 * The checks merge-back makes on what a task branch brings, before anything changes: files it adds that already
 * exist in the working tree as untracked or ignored files (git merges over an ignored file without a word, so
 * the person's git-ignored `.env` would be lost), symbolic links that point outside the repository (a link into
 * `~/.ssh` merged silently is how a later tool reads or writes there), and files that pi, coding agents, git or
 * the shell load or run later (named, so the person looks before running anything).
 */
interface BranchInspection {
  /** Paths the merge would write over that hold untracked or ignored files of the person. */
  overwrites: string[];
  /** `path -> target` of added or changed links that lead outside the repository. */
  outsideLinks: string[];
  /** `A path` / `M path` of files loaded or run later. */
  loadedLater: string[];
}

function existsOnDisk(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Which of `paths` HEAD tracks (exactly, no pattern matching). */
function trackedInHead(top: string, paths: readonly string[]): Set<string> | undefined {
  if (paths.length === 0) return new Set();
  const listed = runGit(top, ["ls-tree", "-z", "--name-only", "HEAD", "--", ...paths], { GIT_LITERAL_PATHSPECS: "1" });
  return listed.ok ? new Set(listed.stdout.split("\0").filter(Boolean)) : undefined;
}

/** Inspects `HEAD...branch` in the repository of `cwd`; fails when git could not say. */
function inspectBranch(
  cwd: string,
  branch: string,
): { ok: true; inspection: BranchInspection } | { ok: false; message: string } {
  const top = runGit(cwd, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return { ok: false, message: `git rev-parse failed: ${top.message}` };
  const root = top.stdout.trim();
  const raw = runGit(root, [
    "diff",
    "--raw",
    "-z",
    "--no-renames",
    "--no-abbrev",
    "--no-ext-diff",
    "--no-textconv",
    `HEAD...${branch}`,
    "--",
  ]);
  if (!raw.ok) return { ok: false, message: `git diff failed: ${raw.message}` };
  const brought = broughtEntries(parseRawDiff(raw.stdout));

  // An added path, or a folder it needs, already on disk but not in HEAD: the person's untracked or ignored file.
  const onDisk = new Set<string>();
  for (const entry of brought.filter((candidate) => candidate.status === "A")) {
    if (existsOnDisk(join(root, entry.path))) onDisk.add(entry.path);
    for (const folder of parentFolders(entry.path)) {
      try {
        if (!lstatSync(join(root, folder)).isDirectory()) onDisk.add(folder);
      } catch {
        break; // the folder is not there, so nothing deeper is either
      }
    }
  }
  const tracked = trackedInHead(root, [...onDisk]);
  if (!tracked) return { ok: false, message: "git ls-tree failed, so the working tree could not be checked" };
  const overwrites = [...onDisk].filter((path) => !tracked.has(path)).sort();

  const outsideLinks: string[] = [];
  for (const entry of brought.filter((candidate) => candidate.newMode === SYMLINK_MODE)) {
    const target = runGit(root, ["cat-file", "blob", entry.newBlob]);
    if (!target.ok) return { ok: false, message: `git cat-file failed: ${target.message}` };
    if (linkLeavesRepository(root, entry.path, target.stdout)) outsideLinks.push(`${entry.path} -> ${target.stdout}`);
  }
  const loadedLater = brought
    .filter((entry) => isLoadedLater(entry.path))
    .map((entry) => `${entry.status} ${entry.path}`);
  return { ok: true, inspection: { overwrites, outsideLinks, loadedLater } };
}

/*
 * Bringing a kept task branch home: `git merge --no-ff subagent/<id>` into the person's current branch, only
 * when their working tree has no uncommitted change to a tracked file and the task's worktree is clean and on
 * its own branch. A merge that stops (a conflict, or anything else) is aborted, so the tree is exactly as it was;
 * nothing is ever resolved automatically. A merged worktree and its branch are removed. Every git call is a safe
 * one (runGit); the worktree's own git dir is checked before git reads it; a branch that would overwrite the
 * person's untracked or ignored files, or adds links leading outside the repository, is refused
 * (src/worktree/merge.ts).
 */
/** Why a merge is refused: the same cases the refusal's text is written for. */
export type MergeRefusal = MergeRefusalText;

export interface MergePlan {
  branch: string;
  into: string;
  /** `M src/a.ts`: what the branch changes against the merge base. */
  files: string[];
  /** `A .envrc`: files among them that pi, coding agents, git or the shell load or run later. */
  loadedLater: string[];
}

export type MergeOutcome =
  | {
      kind: "merged";
      branch: string;
      into: string;
      commit: string;
      files: string[];
      loadedLater: string[];
      removed: boolean;
      removeProblem?: string;
    }
  | { kind: "conflict"; branch: string; into: string; files: string[]; restored: boolean }
  | { kind: "failed"; branch: string; into: string; message: string; restored: boolean }
  | MergeRefusal;

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trimEnd())
    .filter(Boolean);

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
export function planMerge(
  cwd: string,
  worktree: ListedWorktree,
): { ok: true; plan: MergePlan } | { ok: false; refusal: MergeRefusal } {
  if (!worktree.branch) return { ok: false, refusal: { kind: "not-on-branch", leftOn: worktree.leftOn } };
  const current = runGit(cwd, ["symbolic-ref", "-q", "--short", "HEAD"]);
  if (!current.ok || !current.stdout.trim()) return { ok: false, refusal: { kind: "detached" } };
  const into = current.stdout.trim();
  const dirty = trackedChanges(cwd);
  if (dirty.length > 0) return { ok: false, refusal: { kind: "dirty", files: dirty } };
  if (existsSync(worktree.path)) {
    // Its status reads the worktree's index: only through the git dir git made for it.
    const gitDir = checkWorktreeGitDir(cwd, worktree.path);
    if (!gitDir.ok)
      return { ok: false, refusal: { kind: "git-dir-replaced", problem: gitDirReplacedText(worktree.path, gitDir) } };
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
  return {
    ok: true,
    plan: { branch: worktree.branch, into, files: diff.ok ? nameStatus(diff.stdout) : [], loadedLater },
  };
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
    return {
      kind: "merged",
      branch,
      into,
      commit,
      files,
      loadedLater: planned.plan.loadedLater,
      removed: removal.ok,
      ...(removal.ok ? {} : { removeProblem: removal.problem }),
    };
  }
  const conflicts = runGit(cwd, ["diff", "--name-only", "--diff-filter=U"]);
  const files = conflicts.ok ? lines(conflicts.stdout) : [];
  // A merge that stopped half way is undone; one git refused outright (say, untracked files in the way) left nothing.
  if (runGit(cwd, ["rev-parse", "-q", "--verify", "MERGE_HEAD"]).ok) runGit(cwd, ["merge", "--abort"]);
  const restored = head(cwd) === before && trackedChanges(cwd).length === 0;
  if (files.length > 0) return { kind: "conflict", branch, into, files, restored };
  return { kind: "failed", branch, into, message: merged.message, restored };
}
