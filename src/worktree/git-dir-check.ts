/**
 * Before the package runs any git command that reads a task worktree's index (status, add, ls-files, diff), it
 * checks that the worktree still leads to the git dir git made for it: `<repository's common dir>/worktrees/<name>`,
 * whose `gitdir` file points back at this worktree's `.git` file, and that the worktree's common dir is the
 * project's. A child can replace the `.git` file (or make a repository of its own there) whose config runs
 * commands on an index read; then nothing is run there, and the worktree is left as it is and reported.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { runGit } from "./git.ts";

/** `gone`: the worktree's `.git` is not there at all (nothing of another repository is in its place). */
export type GitDirCheck = { ok: true } | { ok: false; found: string; expected: string; gone?: true };

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** What a worktree's `.git` is when it is not the file git wrote, or undefined when it is a file. */
function dotGitShape(dotGit: string): string | undefined {
  try {
    const stat = lstatSync(dotGit);
    if (stat.isFile()) return undefined;
    if (stat.isSymbolicLink()) return "a symbolic link";
    return stat.isDirectory() ? "a repository of its own" : "not a file";
  } catch {
    return "missing";
  }
}

/** The git dir git made for the worktree whose `.git` file is `dotGit`: the entry of `<common>/worktrees` that points back at it. */
function adminDirOf(commonDir: string, dotGit: string): string | undefined {
  const target = real(dotGit);
  if (!target) return undefined;
  let names: string[];
  try {
    names = readdirSync(join(commonDir, "worktrees"));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const admin = join(commonDir, "worktrees", name);
    try {
      if (real(resolve(admin, readFileSync(join(admin, "gitdir"), "utf8").trim())) === target) return real(admin);
    } catch {
      // not a worktree entry git could use either
    }
  }
  return undefined;
}

/** `repoRoot`: any folder of the project (the person's working tree); `path`: the task's worktree folder. */
export function checkWorktreeGitDir(repoRoot: string, path: string): GitDirCheck {
  const dotGit = join(path, ".git");
  const projectCommon = runGit(repoRoot, ["rev-parse", "--git-common-dir"]);
  const commonDir = projectCommon.ok ? real(resolve(repoRoot, projectCommon.stdout.trim())) : undefined;
  if (!commonDir) return { ok: false, found: "a repository the package cannot compare (the project's git dir could not be read)", expected: join(repoRoot, ".git", "worktrees", basename(path)) };
  // Git names a worktree's git dir after its folder; the real entry is the one whose gitdir file points back.
  const expected = adminDirOf(commonDir, dotGit) ?? join(commonDir, "worktrees", basename(path));
  const shape = dotGitShape(dotGit);
  if (shape) return { ok: false, found: `${dotGit} itself (${shape})`, expected, ...(shape === "missing" ? { gone: true as const } : {}) };
  const there = runGit(path, ["rev-parse", "--git-dir", "--git-common-dir"]);
  if (!there.ok) return { ok: false, found: `a git dir git cannot read (${there.message})`, expected };
  const [gitDirText = "", commonText = ""] = there.stdout.split("\n");
  const gitDir = resolve(path, gitDirText.trim());
  const found = real(gitDir) ?? gitDir;
  const ours = found === expected && dirname(found) === join(commonDir, "worktrees") && real(resolve(path, commonText.trim())) === commonDir;
  return ours ? { ok: true } : { ok: false, found, expected };
}

/** The line the person and the model read, in a task's result and a refused merge. */
export function gitDirReplacedText(path: string, check: { found: string; expected: string }): string {
  return `the worktree's git dir was replaced: ${join(path, ".git")} leads to ${check.found}, not to ${check.expected}`;
}
