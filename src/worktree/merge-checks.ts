/**
 * The checks merge-back makes on what a task branch brings, before anything changes: files it adds that already
 * exist in the working tree as untracked or ignored files (git merges over an ignored file without a word, so
 * the person's git-ignored `.env` would be lost), symbolic links that point outside the repository (a link into
 * `~/.ssh` merged silently is how a later tool reads or writes there), and files that pi, coding agents, git or
 * the shell load or run later (named, so the person looks before running anything).
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { broughtEntries, isLoadedLater, linkLeavesRepository, parentFolders, parseRawDiff, SYMLINK_MODE } from "./branch-files.ts";
import { runGit } from "./git.ts";

export interface BranchInspection {
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
export function inspectBranch(cwd: string, branch: string): { ok: true; inspection: BranchInspection } | { ok: false; message: string } {
  const top = runGit(cwd, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return { ok: false, message: `git rev-parse failed: ${top.message}` };
  const root = top.stdout.trim();
  const raw = runGit(root, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", "--no-textconv", `HEAD...${branch}`, "--"]);
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
  const loadedLater = brought.filter((entry) => isLoadedLater(entry.path)).map((entry) => `${entry.status} ${entry.path}`);
  return { ok: true, inspection: { overwrites, outsideLinks, loadedLater } };
}
