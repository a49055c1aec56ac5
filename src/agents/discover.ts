/**
 * The agents a dispatch can name: the three tiers read (parses kept by file identity) and merged.
 */
import { UNKNOWN_LEVEL_READ_ONLY } from "../sandbox/levels.ts";
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import {
  sameIdentity,
  readRegularFileSync,
  statRegularFile,
  type FileIdentity,
  type RegularFileRead,
} from "../shared/safe-read.ts";
import {
  parseAgentFile,
  quoteForMessage,
  type ParsedAgentFile,
  type AgentDefinition,
  type AgentDialect,
  type AgentSource,
  type AgentWarning,
  type AgentScope,
  type DiscoveryResult,
} from "./parse.ts";
import {
  claudeUserAgentsDir,
  findNearestProjectDir,
  PROJECT_AGENTS_RELATIVE,
  PROJECT_CLAUDE_AGENTS_RELATIVE,
  userAgentsDir,
} from "../shared/config-paths.ts";
import { notMappedText } from "./claude-agent.ts";
import { agentDir as piAgentDir, BUILTIN_AGENTS_DIR } from "../shared/this-process.ts";

/*
 * The file-system side of discovery: reads the `*.md` files of one agents folder (not its subfolders), in
 * name order, and parses each. Synchronous on purpose: it runs on every dispatch and on the first turn, and a
 * handful of small files is cheaper to read than to schedule.
 *
 * A project folder is untrusted: only regular files up to AGENT_FILE_MAX_BYTES are read, never a FIFO or a
 * device (see read-regular-file.ts). A file whose identity (inode, size, mtime, ctime) has not changed since
 * the last read is not read or parsed again: discovery then costs one `stat` per file.
 */
/** Largest agent file read (frontmatter and body): a system prompt, not a book. */
export const AGENT_FILE_MAX_BYTES = 1024 * 1024;

interface CachedParse {
  identity: FileIdentity;
  source: AgentSource;
  dialect: AgentDialect | undefined;
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

type FileParse =
  | { kind: "parsed"; parsed: ParsedAgentFile; entry?: CachedParse }
  | { kind: "skip" }
  | { kind: "warn"; reason: string };

function notRead(read: Exclude<RegularFileRead, { ok: true }>): FileParse {
  // A folder that happens to be named *.md is not an agent file and not worth a warning.
  if (read.kind === "directory") return { kind: "skip" };
  // Listed but gone: a dangling link, most likely.
  if (read.kind === "missing") return { kind: "warn", reason: `the file cannot be read (${read.code})` };
  return { kind: "warn", reason: read.reason };
}

function parseOne(
  filePath: string,
  source: AgentSource,
  dialect: AgentDialect | undefined,
  cached: CachedParse | undefined,
): FileParse {
  const stat = statRegularFile(filePath, AGENT_FILE_MAX_BYTES);
  if (!stat.ok) return notRead(stat);
  if (
    cached &&
    cached.source === source &&
    cached.dialect === dialect &&
    sameIdentity(cached.identity, stat.identity)
  ) {
    return { kind: "parsed", parsed: cached.parsed, entry: cached };
  }
  const read = readRegularFileSync(filePath, AGENT_FILE_MAX_BYTES);
  if (!read.ok) return notRead(read);
  parsesDone += 1;
  const parsed = parseAgentFile(read.text, filePath, source, dialect);
  return { kind: "parsed", parsed, entry: { identity: read.identity, source, dialect, parsed } };
}

export interface AgentsDirContents {
  agents: AgentDefinition[];
  warnings: AgentWarning[];
}

/** Plain code-unit order, the same on every machine and locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** @param dialect `claude` for a Claude Code agents folder (its files mapped, src/agents/claude-agent.ts). */
export function readAgentsDir(dir: string, source: AgentSource, dialect?: AgentDialect): AgentsDirContents {
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
    const outcome = parseOne(filePath, source, dialect, previous?.get(fileName));
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
    if (parsed.notMapped !== undefined) warnings.push({ filePath, reason: notMappedText(parsed.notMapped) });
    if (parsed.sandboxProblem !== undefined) {
      warnings.push({ filePath, reason: `${parsed.sandboxProblem}; ${UNKNOWN_LEVEL_READ_ONLY}` });
    }
  }
  parseCache.set(dir, current);
  return { agents, warnings };
}

/*
 * Tier precedence, pure: builtin < Claude user < user < Claude project < project, a later tier replacing an
 * earlier agent of the same name (so a pi file wins over a Claude file of the same name in the same tier).
 * `agentScope` decides which of the user and project tiers take part (Claude's with pi's); builtins always do.
 */
export interface AgentTiers {
  builtin: readonly AgentDefinition[];
  /** `~/.claude/agents` (source `user`, dialect `claude`). */
  claudeUser?: readonly AgentDefinition[];
  user: readonly AgentDefinition[];
  /** The project's `.claude/agents` (source `project`, dialect `claude`). */
  claudeProject?: readonly AgentDefinition[];
  project: readonly AgentDefinition[];
}

function scopeIncludesUser(scope: AgentScope): boolean {
  return scope === "user" || scope === "both";
}

function scopeIncludesProject(scope: AgentScope): boolean {
  return scope === "project" || scope === "both";
}

/**
 * The effective agents, one per name, sorted by name. A project agent that replaces a built-in or user agent
 * carries it as `shadows` (a copy: the parsed definitions are cached and shared), so the name keeps its protection.
 * It is shadowed as the person has it, whatever the call's scope: a scope narrows which agents are offered, never
 * what a name stands for.
 */
export function mergeAgentTiers(tiers: AgentTiers, scope: AgentScope = "both"): AgentDefinition[] {
  const byName: Map<string, AgentDefinition> = new Map();
  const personal: Map<string, AgentDefinition> = new Map();
  for (const agent of [...tiers.builtin, ...(tiers.claudeUser ?? []), ...tiers.user]) personal.set(agent.name, agent);
  const layers = [
    tiers.builtin,
    scopeIncludesUser(scope) ? (tiers.claudeUser ?? []) : [],
    scopeIncludesUser(scope) ? tiers.user : [],
    scopeIncludesProject(scope) ? (tiers.claudeProject ?? []) : [],
    scopeIncludesProject(scope) ? tiers.project : [],
  ];
  for (const layer of layers) {
    for (const agent of layer) {
      const replaced = agent.source === "project" ? personal.get(agent.name) : undefined;
      if (replaced === undefined) byName.set(agent.name, agent);
      else {
        const { name, source, filePath, tools, sandbox, mcp, disallowedTools } = replaced;
        byName.set(agent.name, {
          ...agent,
          shadows: {
            name,
            source,
            filePath,
            ...(tools ? { tools } : {}),
            ...(sandbox ? { sandbox } : {}),
            ...(mcp ? { mcp } : {}),
            ...(disallowedTools ? { disallowedTools } : {}),
          },
        });
      }
    }
  }
  return [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
}

/*
 * Agent discovery: the folders, read and merged. Cheap enough to run on every dispatch: it lists up to five
 * folders, reads only their `*.md` files, and walks up from cwd looking for `.pi/agents` and `.claude/agents`.
 */
export interface DiscoverOptions {
  cwd: string;
  scope?: AgentScope;
  /** pi's agent dir (default: `PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  agentDir?: string;
  /** The package's built-in agents (default: this package's `agents/`). */
  builtinDir?: string;
  /**
   * Where the walk up from cwd stops, and whose `.claude/agents` is the Claude user tier (default: the home
   * directory).
   */
  home?: string;
  /** False when `"$claudeAgents": false` (the person's user file): the two Claude Code tiers are not read. */
  claudeAgents?: boolean;
  /**
   * False when the project's agents must not count (an untrusted project, or the person's `$projectAgents:
   * "never"`): the folder is not read, and the result names it as skipped.
   */
  projectAgents?: boolean;
}

const NOTHING: AgentsDirContents = { agents: [], warnings: [] };

export function findProjectAgentsDir(cwd: string, home?: string): string | undefined {
  return findNearestProjectDir(cwd, PROJECT_AGENTS_RELATIVE, home);
}

/** The project's Claude Code agents folder: the nearest `.claude/agents` walking up, found as `.pi/agents` is. */
function findClaudeProjectAgentsDir(cwd: string, home?: string): string | undefined {
  return findNearestProjectDir(cwd, PROJECT_CLAUDE_AGENTS_RELATIVE, home);
}

export function discoverAgents(options: DiscoverOptions): DiscoveryResult {
  const scope = options.scope ?? "both";
  const builtinDir = options.builtinDir ?? BUILTIN_AGENTS_DIR;
  const userDir = userAgentsDir(options.agentDir ?? piAgentDir());
  let projectDir = findProjectAgentsDir(options.cwd, options.home);
  // When pi's agent dir is itself a project's `.pi` folder, the two tiers are one folder: read it once, as user.
  if (projectDir === userDir) projectDir = undefined;

  const builtin = readAgentsDir(builtinDir, "builtin");
  // Read whatever the scope: a project agent that takes a user agent's name keeps that agent's protection.
  const user = readAgentsDir(userDir, "user");
  const projectAllowed = options.projectAgents !== false;
  const project =
    projectAllowed && scopeIncludesProject(scope) && projectDir !== undefined
      ? readAgentsDir(projectDir, "project")
      : NOTHING;

  // Claude Code's folders, below pi's own: the user one as a user tier, the project one under every project rule.
  const claudeOn = options.claudeAgents !== false;
  const claudeUserDir = claudeOn ? claudeUserAgentsDir(options.home) : undefined;
  let claudeProjectDir = claudeOn ? findClaudeProjectAgentsDir(options.cwd, options.home) : undefined;
  if (claudeProjectDir === claudeUserDir) claudeProjectDir = undefined;
  const claudeUser = claudeUserDir !== undefined ? readAgentsDir(claudeUserDir, "user", "claude") : NOTHING;
  const claudeProject =
    projectAllowed && scopeIncludesProject(scope) && claudeProjectDir !== undefined
      ? readAgentsDir(claudeProjectDir, "project", "claude")
      : NOTHING;

  const result: DiscoveryResult = {
    agents: mergeAgentTiers(
      {
        builtin: builtin.agents,
        claudeUser: claudeUser.agents,
        user: user.agents,
        claudeProject: claudeProject.agents,
        project: project.agents,
      },
      scope,
    ),
    warnings: [
      ...builtin.warnings,
      ...(scopeIncludesUser(scope) ? [...claudeUser.warnings, ...user.warnings] : []),
      ...claudeProject.warnings,
      ...project.warnings,
    ],
    userAgentsDir: userDir,
    builtinAgentsDir: builtinDir,
  };
  if (projectDir !== undefined && projectAllowed) result.projectAgentsDir = projectDir;
  if (projectDir !== undefined && !projectAllowed) result.projectAgentsSkipped = projectDir;
  if (claudeUserDir !== undefined) result.claudeUserAgentsDir = claudeUserDir;
  if (claudeProjectDir !== undefined && projectAllowed) result.claudeProjectAgentsDir = claudeProjectDir;
  if (claudeProjectDir !== undefined && !projectAllowed) result.claudeProjectAgentsSkipped = claudeProjectDir;
  return result;
}

/**
 * The project agents folders found and not read (`.pi/agents`, `.claude/agents`), as the skipped notice names them
 * (`<dir>/ and <dir>`: the notice adds the last `/`); undefined when none was.
 */
export function skippedProjectAgentsDirs(
  discovery: Pick<DiscoveryResult, "projectAgentsSkipped" | "claudeProjectAgentsSkipped">,
): string | undefined {
  const dirs = [discovery.projectAgentsSkipped, discovery.claudeProjectAgentsSkipped].filter(
    (dir): dir is string => dir !== undefined,
  );
  return dirs.length > 0 ? dirs.join("/ and ") : undefined;
}
