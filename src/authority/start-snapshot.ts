/**
 * The session's authority as pi's start leaves it, kept raw: the trust answer, the trust store's and the user file's text, and the guarded files' listing (and what changed since).
 */
import { lstatSync, readdirSync, realpathSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CONFIG_FILE_MAX_BYTES, userConfigPath } from "../shared/config-paths.ts";
import { perProcess } from "../shared/this-process.ts";
import { readRegularFileSync, type RegularFileRead } from "../shared/safe-read.ts";

/*
 * The files pi guards by project trust (pi 1.x docs/security.md: `.pi/settings.json`, `.pi/mcp.json`,
 * `.pi/extensions`, `.pi/skills`, `.pi/prompts`, `.pi/themes`, `.pi/SYSTEM.md`, `.pi/APPEND_SYSTEM.md`, and
 * `.agents/skills` in the folder or a parent), each with its identity (inode, size, change time), so that what
 * appeared or changed since the session's start can be told from what the person's decision at the start covered.
 * pi 0.73.1 loads the same files without asking; of them, extensions and settings (packages) are code.
 */
export const GUARDED_PI_ENTRIES: readonly string[] = Object.freeze([
  "settings.json",
  "mcp.json",
  "extensions",
  "skills",
  "prompts",
  "themes",
  "SYSTEM.md",
  "APPEND_SYSTEM.md",
]);
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
export function listGuardedFiles(
  cwd: string,
  home: string,
  entries: readonly string[] = GUARDED_PI_ENTRIES,
): GuardedListing {
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

/**
 * Each of `paths` that exists, with its identity, and everything under a folder among them, as the guarded files
 * are listed (a warm child's start inputs, src/warm/warm-pool.ts).
 */
export function listPaths(paths: readonly string[]): GuardedListing {
  const listing = new Map<string, string>();
  for (const path of paths) walk(path, listing);
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

/*
 * What the session's authority is decided from, taken at pi's `session_start` (src/start/main-pi.ts)
 * as it is on the disk then, and left uninterpreted: pi 1.x's trust answer, the trust store's and the user file's
 * raw text, the working folder with links resolved, and the listing of the files pi guards. Reading them is a few
 * `stat`s and two small reads; making sense of them (the trust store's nearest decision, the user file's
 * settings) needs the config parser and is done at the first dispatch (src/authority/session-start-read.ts). That
 * keeps the parser off pi's start-up path while the decision still rests on the state at the start, before any
 * child could have written a file.
 */
export interface SessionStartInput {
  cwd: string;
  agentDir: string;
  home: string;
  argv: readonly string[];
  /** pi 1.x's `ctx.isProjectTrusted` (absent on pi 0.73.1). */
  isProjectTrusted?: () => boolean;
}

export interface StartSnapshot {
  cwd: string;
  argv: readonly string[];
  /** pi 1.x's answer at the start; undefined on pi 0.73.1, which has no trust system. */
  piTrusted: boolean | undefined;
  /** The files pi guards, as they were. */
  guarded: GuardedListing;
  /** pi 1.x only: `<agent dir>/trust.json` as it was (undefined: unreadable), and the folder it is looked up for. */
  trustStore?: { text: string | undefined; realCwd: string };
  /** The user file (`subagent-isolation.json`) as it was read then. */
  userFile: { path: string; read: RegularFileRead };
}

function readPiTrusted(isProjectTrusted: (() => boolean) | undefined): boolean | undefined {
  if (typeof isProjectTrusted !== "function") return undefined;
  try {
    return isProjectTrusted();
  } catch {
    // A pi that cannot say is not trusted: the safe side.
    return false;
  }
}

/** `cwd` with links resolved, as pi keys its trust store. */
export function realCwdOf(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return resolve(cwd);
  }
}

/** The trust store's text, or undefined when it cannot be read. */
export function readTrustStoreText(agentDir: string): string | undefined {
  try {
    return readFileSync(join(agentDir, "trust.json"), "utf8");
  } catch {
    return undefined;
  }
}

export function takeStartSnapshot(input: SessionStartInput): StartSnapshot {
  const piTrusted = readPiTrusted(input.isProjectTrusted);
  const guarded = listGuardedFiles(
    input.cwd,
    input.home,
    piTrusted === undefined ? CODE_PI_ENTRIES : GUARDED_PI_ENTRIES,
  );
  const path = userConfigPath(input.agentDir);
  return {
    cwd: input.cwd,
    argv: [...input.argv],
    piTrusted,
    guarded,
    ...(piTrusted === undefined
      ? {}
      : { trustStore: { text: readTrustStoreText(input.agentDir), realCwd: realCwdOf(input.cwd) } }),
    userFile: { path, read: readRegularFileSync(path, CONFIG_FILE_MAX_BYTES) },
  };
}

/** The kept starts of this process, by agent dir and working folder (the runtime is a later load of the modules). */
export function keptStarts(): Map<string, StartSnapshot> {
  return perProcess("session-start-snapshot", () => new Map<string, StartSnapshot>());
}

export function startKey(input: Pick<SessionStartInput, "cwd" | "agentDir">): string {
  return `${input.agentDir}\0${input.cwd}`;
}

/** At pi's `session_start`: keeps the state of now for this session (replacing an earlier session's). */
export function rememberStartSnapshot(input: SessionStartInput): StartSnapshot {
  const snapshot = takeStartSnapshot(input);
  keptStarts().set(startKey(input), snapshot);
  return snapshot;
}
