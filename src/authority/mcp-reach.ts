/**
 * The MCP side of the tool ceiling (pi 1.x; pi 0.73.1 has no MCP): what the main session can reach through MCP,
 * read from its command line and its active tools, and which of an agent's `mcp` entries its child may have. A
 * child that may reach no MCP tool starts with `--no-mcp` (no server process, no credentials handed to one); one
 * that may reach some gets exactly those as `--tools` patterns, the way in it needs (`codemode`, `tool_search`) and
 * the main session's `--exclude-tools`, so the bound holds for its own children too. Pure.
 */
import {
  isMcpToolName,
  matchesToolPattern,
  mcpEntryPattern,
  patternCovers,
  MCP_PREFIX,
} from "../shared/tool-patterns.ts";

/** pi's tools through which a model reaches MCP tools that are not declared to it (pi 1.x). */
export const MCP_WAYS_IN: readonly string[] = Object.freeze(["codemode", "tool_search"]);

/** What the main session's command line says about its tools (pi's own flags, as pi parses them). */
export interface MainToolFlags {
  /** `--no-mcp`: no server connects, no MCP tool. */
  noMcp: boolean;
  /** `--no-tools` / `-nt`: every tool off, MCP ones included. */
  noTools: boolean;
  /** The `mcp__…` entries of a plain `--tools` allowlist: when present, pi keeps only the MCP tools they match. */
  mcpAllow?: string[];
  /** `--exclude-tools` / `-xt`: removed after everything else, MCP tools included. */
  exclude: string[];
}

function splitList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/** Reads pi's tool flags from `argv` as pi does (the last `--tools` wins, as the last `--exclude-tools` does). */
export function readMainToolFlags(argv: readonly string[]): MainToolFlags {
  const flags: MainToolFlags = { noMcp: false, noTools: false, exclude: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    const next = argv[index + 1];
    if (arg === "--no-mcp") flags.noMcp = true;
    else if (arg === "--no-tools" || arg === "-nt") flags.noTools = true;
    else if ((arg === "--tools" || arg === "-t") && next !== undefined) {
      const entries = splitList(next);
      index += 1;
      // `+name`/`-name` entries change pi's defaults, which never filter MCP tools.
      const plain = entries.every((entry) => !entry.startsWith("+") && !entry.startsWith("-"));
      const mcp = entries.filter(isMcpToolName);
      if (plain && mcp.length > 0) flags.mcpAllow = mcp;
      else delete flags.mcpAllow;
    } else if ((arg === "--exclude-tools" || arg === "-xt") && next !== undefined) {
      flags.exclude = splitList(next);
      index += 1;
    }
  }
  return flags;
}

/** What the main session can reach through MCP at the moment of dispatch. */
export interface MainMcpReach {
  /** The pi has MCP (pi 1.x); without it no MCP flag is passed to a child. */
  supported: boolean;
  flags: MainToolFlags;
  /** The session's active tools now. */
  active: readonly string[];
}

interface McpCut {
  /** The agent's entry, as written. */
  entry: string;
  reason: string;
}

export interface McpGrant {
  /** The `--tools` patterns the child gets (empty: it starts with `--no-mcp`). */
  patterns: string[];
  /** `codemode` / `tool_search`, when the child needs them to reach its patterns' tools. */
  waysIn: string[];
  /** What the child is started with in `--exclude-tools`: the main session's own, so nested children keep them. */
  exclude: string[];
  cut: McpCut[];
}

/** Why the main session reaches nothing through MCP, or undefined when it may reach something. */
function mainMcpOff(reach: MainMcpReach): string | undefined {
  if (reach.flags.noMcp) return "MCP is off in the main session: --no-mcp";
  if (reach.flags.noTools) return "the main session has no tools: --no-tools";
  if (reach.flags.exclude.some((pattern) => patternCovers(pattern, `${MCP_PREFIX}*`)))
    return "the main session excludes every MCP tool";
  return undefined;
}

/** Why the main session cannot reach what `pattern` names, or undefined when it can. */
function patternCut(pattern: string, reach: MainMcpReach): string | undefined {
  const excludedBy = reach.flags.exclude.find((outer) => patternCovers(outer, pattern));
  if (excludedBy !== undefined) return `excluded in the main session: --exclude-tools ${excludedBy}`;
  const allow = reach.flags.mcpAllow;
  if (allow !== undefined && !allow.some((outer) => patternCovers(outer, pattern)))
    return "not among the main session's MCP tools: --tools";
  const direct = reach.active.some((tool) => isMcpToolName(tool) && matchesToolPattern(pattern, tool));
  const indirect = reach.active.some((tool) => MCP_WAYS_IN.includes(tool));
  if (!direct && !indirect) return "not reachable in the main session: no MCP tool, codemode or tool_search is active";
  return undefined;
}

/**
 * The child's MCP: the agent's entries (server names or `mcp__…` patterns), each kept when the main session can
 * reach what it names, cut (and said why) when not. `ceiling: "off"` keeps every entry. Absent or empty entries:
 * nothing, and `--no-mcp`.
 */
export function grantMcp(entries: readonly string[] | undefined, reach: MainMcpReach, ceilingOn: boolean): McpGrant {
  // One pattern per entry, the first entry naming it kept for the message.
  const wanted = new Map<string, string>();
  for (const entry of entries ?? []) if (!wanted.has(mcpEntryPattern(entry))) wanted.set(mcpEntryPattern(entry), entry);
  const exclude = [...reach.flags.exclude];
  if (!reach.supported || wanted.size === 0) return { patterns: [], waysIn: [], exclude, cut: [] };
  if (!ceilingOn) return { patterns: [...wanted.keys()], waysIn: [...MCP_WAYS_IN], exclude, cut: [] };
  const off = mainMcpOff(reach);
  const cut: McpCut[] = [];
  const patterns: string[] = [];
  for (const [pattern, entry] of wanted) {
    const reason = off ?? patternCut(pattern, reach);
    if (reason === undefined) patterns.push(pattern);
    else cut.push({ entry, reason });
  }
  const waysIn = patterns.length > 0 ? MCP_WAYS_IN.filter((tool) => reach.active.includes(tool)) : [];
  return { patterns, waysIn, exclude, cut };
}
