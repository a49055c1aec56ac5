// @ts-check
/**
 * The file-system side of discovery: reads the `*.md` files of one agents folder (not its subfolders), in
 * name order, and parses each. Synchronous on purpose: it runs on every dispatch and on the first turn, and a
 * handful of small files is cheaper to read than to schedule.
 *
 * A project folder is untrusted: only regular files up to AGENT_FILE_MAX_BYTES are read, never a FIFO or a
 * device (see read-regular-file.js). A file whose identity (inode, size, mtime, ctime) has not changed since
 * the last read is not read or parsed again: discovery then costs one `stat` per file.
 */
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { sameIdentity } from "../shared/file-identity.js";
/** @import { FileIdentity } from "../shared/file-identity.js" */
import { readRegularFileSync, statRegularFile } from "../shared/read-regular-file.js";
/** @import { RegularFileRead } from "../shared/read-regular-file.js" */
import { parseAgentFile, quoteForMessage } from "./parse.js";
/** @import { ParsedAgentFile } from "./parse.js" */
/** @import { AgentDefinition, AgentSource, AgentWarning } from "./types.ts" */

/** Largest agent file read (frontmatter and body): a system prompt, not a book. */
export const AGENT_FILE_MAX_BYTES = 1024 * 1024;

/**
 * @typedef {object} CachedParse
 * @property {FileIdentity} identity
 * @property {AgentSource} source
 * @property {ParsedAgentFile} parsed
 */

/**
 * Per folder, per file name: the last parse. Replaced on each read of the folder, so deleted files drop out.
 * @type {Map<string, Map<string, CachedParse>>}
 */
const parseCache = new Map();
let parsesDone = 0;

/**
 * For tests: how many files were parsed (not served from the cache) since the process started.
 * @returns {number}
 */
export function agentFileParsesForTests() {
  return parsesDone;
}

/**
 * For tests: forget every cached parse.
 * @returns {void}
 */
export function clearAgentParseCacheForTests() {
  parseCache.clear();
}

/** @typedef {{ kind: "parsed"; parsed: ParsedAgentFile; entry?: CachedParse } | { kind: "skip" } | { kind: "warn"; reason: string }} FileParse */

/**
 * @param {Exclude<RegularFileRead, { ok: true }>} read
 * @returns {FileParse}
 */
function notRead(read) {
  // A folder that happens to be named *.md is not an agent file and not worth a warning.
  if (read.kind === "directory") return { kind: "skip" };
  // Listed but gone: a dangling link, most likely.
  if (read.kind === "missing") return { kind: "warn", reason: `the file cannot be read (${read.code})` };
  return { kind: "warn", reason: read.reason };
}

/**
 * @param {string} filePath
 * @param {AgentSource} source
 * @param {CachedParse | undefined} cached
 * @returns {FileParse}
 */
function parseOne(filePath, source, cached) {
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

/**
 * @typedef {object} AgentsDirContents
 * @property {AgentDefinition[]} agents
 * @property {AgentWarning[]} warnings
 */

/**
 * Plain code-unit order, the same on every machine and locale.
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
export function compareNames(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * @param {string} dir
 * @param {AgentSource} source
 * @returns {AgentsDirContents}
 */
export function readAgentsDir(dir, source) {
  /** @type {string[]} */
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    // A missing (or unreadable) folder simply has no agents.
    return { agents: [], warnings: [] };
  }
  /** @type {AgentDefinition[]} */
  const agents = [];
  /** @type {AgentWarning[]} */
  const warnings = [];
  /** @type {Map<string, string>} */
  const fileByName = new Map();
  const previous = parseCache.get(dir);
  /** @type {Map<string, CachedParse>} */
  const current = new Map();
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
  }
  parseCache.set(dir, current);
  return { agents, warnings };
}
