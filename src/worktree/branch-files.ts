/**
 * What a task branch brings into the person's working tree, judged before a merge: the entries of
 * `git diff --raw -z --no-renames`, where a symbolic link added by the branch points, and which files are ones
 * that pi, coding agents, git or the person's shell load or run later (so the person looks before running
 * anything). Pure.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "./paths.ts";

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
const LOADED_FILES = new Set(["AGENTS.md", "CLAUDE.md", ".envrc", ".gitattributes", ".gitmodules", ".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml"]);

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
