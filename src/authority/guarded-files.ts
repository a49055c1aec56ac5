/**
 * The files pi guards by project trust (pi 1.x docs/security.md: `.pi/settings.json`, `.pi/mcp.json`,
 * `.pi/extensions`, `.pi/skills`, `.pi/prompts`, `.pi/themes`, `.pi/SYSTEM.md`, `.pi/APPEND_SYSTEM.md`, and
 * `.agents/skills` in the folder or a parent), each with its identity (inode, size, change time), so that what
 * appeared or changed since the session's start can be told from what the person's decision at the start covered.
 * pi 0.73.1 loads the same files without asking; of them, extensions and settings (packages) are code.
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const GUARDED_PI_ENTRIES: readonly string[] = Object.freeze(["settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"]);
/** Of those, what loads as code (the ones pi 0.73.1 would run in a child). */
export const CODE_PI_ENTRIES: readonly string[] = Object.freeze(["settings.json", "extensions"]);

/** At most this many files are listed; a larger tree counts as changed when its listing is cut differently. */
const MAX_ENTRIES = 2000;
/** Folders whose insides are not listed (their own entry still changes when something is added at their top). */
const NOT_DESCENDED = new Set(["node_modules", ".git"]);

/** Path (absolute) to identity (`ino:size:ctime`, or `dir` for a folder's listing order). */
export type GuardedListing = ReadonlyMap<string, string>;

function identity(path: string): string | undefined {
  try {
    const stat = lstatSync(path);
    return `${stat.isDirectory() ? "d" : stat.isSymbolicLink() ? "l" : "f"}:${stat.ino}:${stat.size}:${stat.ctimeMs}:${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
}

function walk(path: string, into: Map<string, string>): void {
  if (into.size >= MAX_ENTRIES) return;
  const id = identity(path);
  if (id === undefined) return;
  into.set(path, id);
  if (!id.startsWith("d:")) return;
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const child = join(path, name);
    if (NOT_DESCENDED.has(name)) {
      const childId = identity(child);
      if (childId !== undefined && into.size < MAX_ENTRIES) into.set(child, childId);
      continue;
    }
    walk(child, into);
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Every guarded file under `cwd` (and `.agents/skills` of its parents, not the home folder's own), with its
 * identity. `entries`: which of `.pi/`'s guarded names to list (default all).
 */
export function listGuardedFiles(cwd: string, home: string, entries: readonly string[] = GUARDED_PI_ENTRIES): GuardedListing {
  const listing = new Map<string, string>();
  const dir = canonical(cwd);
  for (const name of entries) walk(join(dir, ".pi", name), listing);
  if (entries === GUARDED_PI_ENTRIES) {
    const homeSkills = join(canonical(home), ".agents", "skills");
    let current = dir;
    while (true) {
      const skills = join(current, ".agents", "skills");
      if (skills !== homeSkills) walk(skills, listing);
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
  return listing;
}

/** What appeared, changed or went since `before` (paths, sorted); empty when nothing did. */
export function guardedChanges(before: GuardedListing, now: GuardedListing): string[] {
  const changed = new Set<string>();
  for (const [path, id] of now) if (before.get(path) !== id) changed.add(path);
  for (const path of before.keys()) if (!now.has(path)) changed.add(path);
  // A folder changes with every file added to it: name the files, and a folder only when it alone changed.
  const files = [...changed].filter((path) => !(now.get(path) ?? before.get(path) ?? "").startsWith("d:"));
  return (files.length > 0 ? files : [...changed]).sort();
}
