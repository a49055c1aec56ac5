/**
 * A task's branch before a merge (pure): what the branch brings, and the texts of a merge.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "./worktree.ts";
import { stripTerminalControls } from "../shared/text.ts";

/*
 * What a task branch brings into the person's working tree, judged before a merge: the entries of
 * `git diff --raw -z --no-renames`, where a symbolic link added by the branch points, and which files are ones
 * that pi, coding agents, git or the person's shell load or run later (so the person looks before running
 * anything). Pure.
 */
/** One entry of `git diff --raw`: status letter (A, M, D, T), new mode and blob, and the path. */
export interface RawEntry {
  status: string;
  newMode: string;
  newBlob: string;
  path: string;
}

/** Parses `git diff --raw -z --no-renames --no-abbrev` output. */
export function parseRawDiff(output: string): RawEntry[] {
  const fields = output.split("\0");
  const entries: RawEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i] ?? "";
    const path = fields[i + 1] ?? "";
    if (!meta.startsWith(":") || !path) continue;
    const [, newMode = "", , newBlob = "", status = ""] = meta.slice(1).split(" ");
    entries.push({ status: status.charAt(0), newMode, newBlob, path });
  }
  return entries;
}

export const SYMLINK_MODE = "120000";

/**
 * True when a link at `path` (relative to the repository's top) with target `target` leads outside the working
 * tree or into its `.git`, read lexically (the target need not exist).
 */
export function linkLeavesRepository(top: string, path: string, target: string): boolean {
  const resolved = isAbsolute(target) ? resolve(target) : resolve(dirname(join(top, path)), target);
  return !isInside(top, resolved) || isInside(join(top, ".git"), resolved);
}

/** Folders whose files pi, coding agents or git hook managers load or run (not a bare `hooks/`: React's are code). */
const LOADED_FOLDERS = new Set([".pi", ".agents", ".claude", ".husky", ".githooks", "githooks", "git-hooks"]);
/** Files, wherever they are, that agents read as instructions or tools run on their own. */
const LOADED_FILES = new Set([
  "AGENTS.md",
  "CLAUDE.md",
  ".envrc",
  ".gitattributes",
  ".gitmodules",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  "lefthook.yaml",
  ".lefthook.yml",
]);

/** A path that pi, coding agents, git or the person's shell or editor load or run later. */
export function isLoadedLater(path: string): boolean {
  const parts = path.split("/");
  const name = parts[parts.length - 1] ?? "";
  if (LOADED_FILES.has(name)) return true;
  if (path === ".vscode/tasks.json" || path.endsWith("/.vscode/tasks.json")) return true;
  return parts.slice(0, -1).some((folder) => LOADED_FOLDERS.has(folder));
}

/** The entries that bring something into the tree (added, changed, or changed in type); deletions bring nothing. */
export function broughtEntries(entries: readonly RawEntry[]): RawEntry[] {
  return entries.filter((entry) => entry.status === "A" || entry.status === "M" || entry.status === "T");
}

/** Every proper parent folder of a path (`a`, `a/b` for `a/b/c`). */
export function parentFolders(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/*
 * What the person and the model read about merging a task's branch: the confirmation challenge, the refusals,
 * and the outcome (the merge commit and files, or the conflicting files of an aborted merge). Pure; the outcome
 * types are structural copies of src/worktree/merge.ts's, so core needs nothing from io.
 */
const FILES_SHOWN = 20;

/** File names and link targets come from the child's branch: none may drive the terminal that shows them. */
function fileList(files: readonly string[]): string {
  const shown = files.slice(0, FILES_SHOWN).map((file) => `- ${stripTerminalControls(file)}`);
  if (files.length > FILES_SHOWN) shown.push(`- … and ${files.length - FILES_SHOWN} more`);
  return shown.join("\n");
}

const count = (n: number) => `${n} ${n === 1 ? "file" : "files"}`;

export type MergeRefusalText =
  | { kind: "detached" }
  | { kind: "dirty"; files: string[] }
  | { kind: "not-on-branch"; leftOn?: string }
  | { kind: "worktree-dirty"; files: string[] }
  | { kind: "nothing"; into: string }
  | { kind: "git-dir-replaced"; problem: string }
  | { kind: "would-overwrite"; files: string[] }
  | { kind: "outside-links"; links: string[] }
  | { kind: "unchecked"; message: string };

export function mergeRefusalText(taskId: string, refusal: MergeRefusalText): string {
  const branch = `subagent/${taskId}`;
  switch (refusal.kind) {
    case "detached":
      return `Cannot merge ${branch}: HEAD is detached. Check out the branch to merge into first. Nothing was merged.`;
    case "dirty":
      return `Cannot merge ${branch}: the working tree has uncommitted changes (${count(refusal.files.length)}). Commit or stash them first. Nothing was merged.\n${fileList(refusal.files)}`;
    case "not-on-branch":
      return `Cannot merge ${branch}: the task's worktree is not on that branch (it is on ${refusal.leftOn ?? "no branch"}). Merge by hand. Nothing was merged.`;
    case "worktree-dirty":
      return `Cannot merge ${branch}: its worktree has changes that were never committed (${count(refusal.files.length)}). Commit or remove them there first. Nothing was merged.\n${fileList(refusal.files)}`;
    case "nothing":
      return `Nothing to merge: ${branch} has no commit that ${refusal.into} lacks. The worktree is kept; remove it with /subagent-worktrees remove ${taskId}.`;
    case "git-dir-replaced":
      return `Cannot merge ${branch}: ${refusal.problem}. Nothing was merged.`;
    case "would-overwrite":
      return `Cannot merge ${branch}: it adds files that already exist in your working tree, untracked or ignored by git, which the merge would overwrite (${count(refusal.files.length)}). Move them away first, or merge by hand. Nothing was merged.\n${fileList(refusal.files)}`;
    case "outside-links": {
      const links = `${refusal.links.length} ${refusal.links.length === 1 ? "link" : "links"}`;
      return `Cannot merge ${branch}: it adds symbolic links that point outside the repository (${links}). Look at them first (git show ${branch} -- <path>), and merge by hand if you want them. Nothing was merged.\n${fileList(refusal.links)}`;
    }
    case "unchecked":
      return `Cannot merge ${branch}: what it brings could not be checked (${refusal.message}). Nothing was merged.`;
  }
}

/** Files the person should look at before running anything: said before and after the merge. */
function loadedLaterLines(files: readonly string[] | undefined, when: "would bring" | "brought"): string[] {
  if (!files || files.length === 0) return [];
  return [
    `Look before you run anything here: the merge ${when} files that pi, coding agents, git or your shell load or run later (${count(files.length)}):`,
    fileList(files),
  ];
}

export function mergeChallenge(
  plan: { branch: string; into: string; files: string[]; loadedLater?: string[] },
  taskId: string,
): string {
  return [
    `Merging ${plan.branch} into ${plan.into} would change ${count(plan.files.length)}:`,
    fileList(plan.files),
    ...loadedLaterLines(plan.loadedLater, "would bring"),
    `Nothing was done. To merge, call again with action "merge", taskId "${taskId}" and confirm: true.`,
  ].join("\n");
}

export type MergeOutcomeText =
  | {
      kind: "merged";
      branch: string;
      into: string;
      commit: string;
      files: string[];
      loadedLater?: string[];
      removed: boolean;
      removeProblem?: string;
    }
  | { kind: "conflict"; branch: string; into: string; files: string[]; restored: boolean }
  | { kind: "failed"; branch: string; into: string; message: string; restored: boolean };

function restoredLine(restored: boolean): string {
  return restored
    ? "The merge was aborted; the working tree is exactly as it was."
    : "The merge was aborted, but the working tree did not return to its state before the merge: check git status.";
}

export function mergeOutcomeText(outcome: MergeOutcomeText): string {
  switch (outcome.kind) {
    case "merged": {
      const removed = outcome.removed
        ? `Removed its worktree and branch ${outcome.branch}.`
        : `Its worktree was kept: ${outcome.removeProblem ?? "it could not be removed"}.`;
      return [
        `Merged ${outcome.branch} into ${outcome.into}: merge commit ${outcome.commit.slice(0, 12)}, ${count(outcome.files.length)}:`,
        fileList(outcome.files),
        removed,
        ...loadedLaterLines(outcome.loadedLater, "brought"),
      ].join("\n");
    }
    case "conflict":
      return [
        `Could not merge ${outcome.branch} into ${outcome.into}: ${count(outcome.files.length)} in conflict. ${restoredLine(outcome.restored)} Nothing was resolved.`,
        fileList(outcome.files),
        `To resolve it yourself: git merge ${outcome.branch}.`,
      ].join("\n");
    case "failed":
      return `Could not merge ${outcome.branch} into ${outcome.into}: ${outcome.message}. ${restoredLine(outcome.restored)}`;
  }
}
