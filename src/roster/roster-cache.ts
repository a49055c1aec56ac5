/**
 * The roster on pi's start-up path: the block remembered across starts by fingerprint, and appended to the system prompt.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  claudeUserAgentsDir,
  findNearestProjectDir,
  PROJECT_AGENTS_RELATIVE,
  PROJECT_CLAUDE_AGENTS_RELATIVE,
  userAgentsDir,
  userConfigPath,
} from "../shared/config-paths.ts";
import { identityOf, readRegularFileSync, type FileIdentity } from "../shared/safe-read.ts";
import { agentDir, BUILTIN_AGENTS_DIR, PACKAGE_ROOT } from "../shared/this-process.ts";

/*
 * The roster block remembered across pi starts. Building it means loading and running agent discovery and
 * frontmatter parsing, some twenty modules and the largest part of what the package costs a starting pi;
 * checking whether a remembered block still holds takes a few directory listings and stats.
 *
 * The file is `<agent dir>/subagent-roster-cache.json`: the last few blocks, each under the fingerprint of
 * everything the block comes from: the agents folders discovery reads for this working directory
 * (built-in, user, project, and Claude Code's user and project folders: which project folders are found depends on
 * the working directory; `$claudeAgents` lives in the user file, whose identity counts too) with the identity
 * (inode, size, mtime, ctime) of each `*.md` file in them, and the package's own files that shape the block.
 * An edited, added or removed agent file, another project folder or another package version gives another
 * fingerprint, and the block is built afresh. A build that warned is not remembered, so its warnings are
 * shown at every start as before. The file holds nothing that is not in the agent files; deleting it is safe.
 */
export const ROSTER_CACHE_FILE_NAME = "subagent-roster-cache.json";
/** Blocks kept: one per recent project, roughly. */
export const ROSTER_CACHE_ENTRIES = 8;
/** Eight roster blocks are a few KiB each; a larger cache file was not written by this package. */
const ROSTER_CACHE_MAX_BYTES = 1024 * 1024;
/** Raised when the way a block is built changes in a way the package files below would not show. */
const FORMAT_VERSION = 2;
/**
 * The package's files whose change changes the block: its version, the modules that write the block, and those that
 * decide which agents it lists and how their descriptions read. A unit test checks that each exists.
 */
export const ROSTER_SHAPING_FILES = [
  "package.json",
  join("src", "roster", "roster.ts"),
  join("src", "shared", "text.ts"),
  join("src", "agents", "parse.ts"),
  join("src", "agents", "discover.ts"),
];

interface CacheEntry {
  fingerprint: string;
  /** The block, or null when there are no agents (no roster). */
  block: string | null;
}

export interface RosterCacheOptions {
  /**
   * pi 1.x: whether the session trusts the project (an untrusted project's agents are not listed); absent on pi
   * 0.73.1.
   */
  projectTrusted?: boolean;
  agentDir?: string;
  builtinDir?: string;
  packageRoot?: string;
  home?: string;
}

function identity(path: string): FileIdentity | null {
  try {
    return identityOf(statSync(path));
  } catch {
    return null;
  }
}

/** `[name, identity]` of each `*.md` entry, in name order; null when the folder cannot be listed. */
function folderState(dir: string | undefined): Array<[string, FileIdentity | null]> | null {
  if (dir === undefined) return null;
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => name.endsWith(".md"))
      .sort();
  } catch {
    return null;
  }
  return names.map((name) => [name, identity(join(dir, name))]);
}

/** Everything the roster for `cwd` is built from, as one string. */
export function rosterFingerprint(cwd: string, options: RosterCacheOptions = {}): string {
  const builtinDir = options.builtinDir ?? BUILTIN_AGENTS_DIR;
  const dir = options.agentDir ?? agentDir();
  const userDir = userAgentsDir(dir);
  const projectDir = findNearestProjectDir(cwd, PROJECT_AGENTS_RELATIVE, options.home);
  const claudeUserDir = claudeUserAgentsDir(options.home);
  const claudeProjectDir = findNearestProjectDir(cwd, PROJECT_CLAUDE_AGENTS_RELATIVE, options.home);
  const packageRoot = options.packageRoot ?? PACKAGE_ROOT;
  return JSON.stringify({
    v: FORMAT_VERSION,
    package: ROSTER_SHAPING_FILES.map((file) => [file, identity(join(packageRoot, file))]),
    // The project's agents are listed only in a trusted project and unless the user file says never.
    trusted: options.projectTrusted ?? null,
    userConfig: identity(userConfigPath(dir)),
    folders: [
      [builtinDir, folderState(builtinDir)],
      [userDir, folderState(userDir)],
      [projectDir ?? null, folderState(projectDir)],
      [claudeUserDir, folderState(claudeUserDir)],
      [claudeProjectDir ?? null, folderState(claudeProjectDir)],
    ],
  });
}

function cacheFile(options: RosterCacheOptions): string {
  return join(options.agentDir ?? agentDir(), ROSTER_CACHE_FILE_NAME);
}

function isCacheEntry(entry: unknown): entry is CacheEntry {
  if (typeof entry !== "object" || entry === null) return false;
  const { fingerprint, block } = entry as { fingerprint?: unknown; block?: unknown };
  return typeof fingerprint === "string" && (typeof block === "string" || block === null);
}

function readEntries(options: RosterCacheOptions): CacheEntry[] {
  // Our own state file: a regular file of bounded size, never a link (src/shared/safe-write.ts's rules).
  const read = readRegularFileSync(cacheFile(options), ROSTER_CACHE_MAX_BYTES, { followLinks: false });
  if (!read.ok) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch {
    return [];
  }
  const entries = typeof parsed === "object" && parsed !== null ? (parsed as { entries?: unknown }).entries : undefined;
  if (!Array.isArray(entries)) return [];
  return entries.filter(isCacheEntry);
}

/** The remembered block for `fingerprint` (`{ block: undefined }` means: no agents, no roster), if any. */
export function cachedRoster(
  fingerprint: string,
  options: RosterCacheOptions = {},
): { block: string | undefined } | undefined {
  const entry = readEntries(options).find((candidate) => candidate.fingerprint === fingerprint);
  return entry ? { block: entry.block ?? undefined } : undefined;
}

/**
 * Remembers `block` under `fingerprint`, newest first; a failure to write only costs the next start a build.
 * @param block The atomic writer is imported only here, so a start that finds its block remembered never loads it.
 */
export async function rememberRoster(
  fingerprint: string,
  block: string | undefined,
  options: RosterCacheOptions = {},
): Promise<void> {
  try {
    const { writeFileAtomicSync } = await import("../shared/safe-write.ts");
    const entries = [
      { fingerprint, block: block ?? null },
      ...readEntries(options).filter((entry) => entry.fingerprint !== fingerprint),
    ];
    writeFileAtomicSync(cacheFile(options), `${JSON.stringify({ entries: entries.slice(0, ROSTER_CACHE_ENTRIES) })}\n`);
  } catch {
    // a read-only agent dir, a full disk: the roster is simply built again next time
  }
}

/** The system prompt with the roster block at its end, the existing content untouched in front. Pure. */
export function appendRoster(systemPrompt: string, block: string): string {
  const base = systemPrompt.trimEnd();
  // pi 1.x runs before_agent_start for every run, also those started by a steer message; should a host hand us a
  // prompt that already ends with this roster, it is not appended twice.
  if (base.endsWith(block.trimEnd())) return systemPrompt;
  return base === "" ? block : `${base}\n\n${block}`;
}
