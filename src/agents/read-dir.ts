/**
 * The file-system side of discovery: reads the `*.md` files of one agents folder (not its subfolders), in
 * name order, and parses each. Synchronous on purpose: it runs on every dispatch and on the first turn, and a
 * handful of small files is cheaper to read than to schedule.
 *
 * A project folder is untrusted: only regular files up to AGENT_FILE_MAX_BYTES are read, never a FIFO or a
 * device (see read-regular-file.ts). A file whose identity (inode, size, mtime, ctime) has not changed since
 * the last read is not read or parsed again: discovery then costs one `stat` per file.
 */
import { UNKNOWN_LEVEL_READ_ONLY } from "../sandbox/texts.ts";
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { sameIdentity } from "../shared/file-identity.ts";
import type { FileIdentity } from "../shared/file-identity.ts";
import { readRegularFileSync, statRegularFile } from "../shared/read-regular-file.ts";
import type { RegularFileRead } from "../shared/read-regular-file.ts";
import { parseAgentFile, quoteForMessage } from "./parse.ts";
import type { ParsedAgentFile } from "./parse.ts";
import type { AgentDefinition, AgentSource, AgentWarning } from "./types.ts";

/** Largest agent file read (frontmatter and body): a system prompt, not a book. */
export const AGENT_FILE_MAX_BYTES = 1024 * 1024;

export interface CachedParse {
  identity: FileIdentity;
  source: AgentSource;
  parsed: ParsedAgentFile;
}

/** Per folder, per file name: the last parse. Replaced on each read of the folder, so deleted files drop out. */
const parseCache: Map<string, Map<string, CachedParse>> = new Map();
let parsesDone = 0;

/** For tests: how many files were parsed (not served from the cache) since the process started. */
export function agentFileParsesForTests(): number {
  return parsesDone;
}

/** For tests: forget every cached parse. */
export function clearAgentParseCacheForTests(): void {
  parseCache.clear();
}

export type FileParse = { kind: "parsed"; parsed: ParsedAgentFile; entry?: CachedParse } | { kind: "skip" } | { kind: "warn"; reason: string };

function notRead(read: Exclude<RegularFileRead, { ok: true }>): FileParse {
  // A folder that happens to be named *.md is not an agent file and not worth a warning.
  if (read.kind === "directory") return { kind: "skip" };
  // Listed but gone: a dangling link, most likely.
  if (read.kind === "missing") return { kind: "warn", reason: `the file cannot be read (${read.code})` };
  return { kind: "warn", reason: read.reason };
}

function parseOne(filePath: string, source: AgentSource, cached: CachedParse | undefined): FileParse {
  const stat = statRegularFile(filePath, AGENT_FILE_MAX_BYTES);
  if (!stat.ok) return notRead(stat);
  if (cached && cached.source === source && sameIdentity(cached.identity, stat.identity)) {
    return { kind: "parsed", parsed: cached.parsed, entry: cached };
  }
  const read = readRegularFileSync(filePath, AGENT_FILE_MAX_BYTES);
  if (!read.ok) return notRead(read);
  parsesDone += 1;
  const parsed = parseAgentFile(read.text, filePath, source);
  return { kind: "parsed", parsed, entry: { identity: read.identity, source, parsed } };
}

export interface AgentsDirContents {
  agents: AgentDefinition[];
  warnings: AgentWarning[];
}

/** Plain code-unit order, the same on every machine and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function readAgentsDir(dir: string, source: AgentSource): AgentsDirContents {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // A missing (or unreadable) folder simply has no agents.
    return { agents: [], warnings: [] };
  }
  const agents: AgentDefinition[] = [];
  const warnings: AgentWarning[] = [];
  const fileByName: Map<string, string> = new Map();
  const previous = parseCache.get(dir);
  const current: Map<string, CachedParse> = new Map();
  for (const fileName of names.filter((n) => n.endsWith(".md")).sort(compareNames)) {
    const filePath = join(dir, fileName);
    const outcome = parseOne(filePath, source, previous?.get(fileName));
    if (outcome.kind === "skip") continue;
    if (outcome.kind === "warn") {
      warnings.push({ filePath, reason: outcome.reason, skipped: true });
      continue;
    }
    if (outcome.entry) current.set(fileName, outcome.entry);
    const parsed = outcome.parsed;
    if (!parsed.ok) {
      warnings.push({ filePath, reason: parsed.reason, skipped: true });
      continue;
    }
    const earlier = fileByName.get(parsed.agent.name);
    if (earlier !== undefined) {
      warnings.push({
        filePath,
        reason: `duplicate name ${quoteForMessage(parsed.agent.name)} (already defined by ${basename(earlier)} in the same folder)`,
        skipped: true,
      });
      continue;
    }
    fileByName.set(parsed.agent.name, filePath);
    // A copy: the cached parse is shared by every later discovery.
    agents.push({ ...parsed.agent });
    if (parsed.ignored.length > 0) {
      const what = parsed.ignored.length === 1 ? "that field is" : "those fields are";
      warnings.push({ filePath, reason: `${parsed.ignored.join("; ")}; ${what} ignored, the agent still loads` });
    }
    if (parsed.sandboxProblem !== undefined) {
      warnings.push({ filePath, reason: `${parsed.sandboxProblem}; ${UNKNOWN_LEVEL_READ_ONLY}` });
    }
  }
  parseCache.set(dir, current);
  return { agents, warnings };
}
