/**
 * The tool ceiling: a child never gets a tool the main session lacks at the moment of dispatch. Read-only
 * built-ins are always allowed; `edit` and `write` need a tool that can already change files (edit, write or
 * bash); bash needs bash; any other tool needs itself. MCP tools (pi 1.x) follow the MCP part below. An
 * agent's `disallowedTools` go last: removed from whatever it was granted, and handed to its child's
 * `--exclude-tools` so they hold for its own children too. Pure: the caller passes the session's tools as pi
 * reports them (`getActiveTools`, `getAllTools`, its command line) and the agent's and call's lists.
 */
import { protectedTools, replacedAgentText, type AgentDefinition } from "../agents/parse.ts";
import { resolveToolLimits, type ConfigLayers } from "../config/resolve.ts";
import {
  isMcpToolName,
  matchesToolPattern,
  mcpEntryPattern,
  patternCovers,
  MCP_PREFIX,
} from "../shared/tool-patterns.ts";

/** pi's built-ins that only read: a child may always have them. */
const READ_ONLY_BUILTINS: readonly string[] = Object.freeze(["read", "grep", "find", "ls"]);
/** What a pi child has when no `--tools` list is given (pi 0.73.1 and 1.x), besides its extensions' tools. */
export const PI_DEFAULT_TOOLS: readonly string[] = Object.freeze(["read", "bash", "edit", "write"]);
/** The package's own tool: a child's list gets it from the nesting rule (command-line.ts), never from here. */
const SUBAGENT_TOOL = "subagent";
const FILE_CHANGING = ["edit", "write", "bash"];

/** `session` (the default): the ceiling holds. `off`: lifted by the person in the user-level config. */
export type ToolCeilingSetting = "session" | "off";

export interface SessionTools {
  /** The main session's active tools at the moment of dispatch. */
  active: readonly string[];
  /** The extension tools the session has (active or not): a child without a tools list would get them all. */
  extensionTools: readonly string[];
  /** pi 1.x: what the session reaches through MCP (absent: a pi without MCP). */
  mcp?: MainMcpReach;
}

export interface ToolGrantInput {
  /** The agent's `tools` list; absent: pi's defaults and every extension tool. */
  agentTools?: readonly string[];
  /** The call's `tools`: may only narrow the agent's. */
  callTools?: readonly string[];
  /** The agent's `mcp` entries (server names or `mcp__…` patterns); absent: none. */
  agentMcp?: readonly string[];
  /** The agent's `disallowedTools` (names or `*` patterns). */
  disallowed?: readonly string[];
  session: SessionTools;
  ceiling: ToolCeilingSetting;
}

export interface ToolGrant {
  /** The child's `--tools` list; absent: no list (pi's defaults, as the agent asked). */
  tools?: string[];
  /** Tools the agent would have had that the ceiling cut, in the agent's order. */
  notGranted: string[];
  /** Why, in a few words, when something was cut. */
  reason?: string;
  /**
   * pi 1.x: the child's `--exclude-tools` (the main session's own, then the agent's `disallowedTools`). Present
   * whenever the pi has MCP: the child then starts with `--no-mcp` unless its list has an `mcp__` pattern
   * (src/run/command-line.ts).
   */
  mcp?: { exclude: string[] };
}

/** Whether a session whose active tools are `active` may give `tool` to a child. */
export function ceilingAllows(tool: string, active: ReadonlySet<string>): boolean {
  if (READ_ONLY_BUILTINS.includes(tool)) return true;
  if (tool === "edit" || tool === "write") return FILE_CHANGING.some((name) => active.has(name));
  return active.has(tool);
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => name.trim()).filter((name) => name !== ""))];
}

/** The tools a child without a tools list would start with. */
function defaultChildTools(session: SessionTools): string[] {
  // MCP tools a subagent's own MCP registered (src/pi/child-mcp.ts) count as its extension's: MCP has its own ceiling.
  return unique([...PI_DEFAULT_TOOLS, ...session.extensionTools]).filter(
    (name) => name !== SUBAGENT_TOOL && !isMcpToolName(name) && !MCP_WAYS_IN.includes(name),
  );
}

function cutReason(active: ReadonlySet<string>): string {
  return FILE_CHANGING.some((name) => active.has(name))
    ? "not active in the main session"
    : "the main session has read-only tools";
}

/** The grant before MCP and `disallowedTools`: the ceiling over the agent's (non-MCP) tools, as it always was. */
function grantPlainTools(input: ToolGrantInput, listed: string[] | undefined): ToolGrant {
  const active = new Set(input.session.active);
  const narrowTo = input.callTools === undefined ? undefined : new Set(unique(input.callTools));
  const wanted = (listed ?? defaultChildTools(input.session)).filter(
    (name) => narrowTo === undefined || narrowTo.has(name),
  );
  if (input.ceiling === "off") {
    return listed === undefined && narrowTo === undefined ? { notGranted: [] } : { tools: wanted, notGranted: [] };
  }
  const granted = wanted.filter((name) => ceilingAllows(name, active));
  const notGranted = wanted.filter((name) => !ceilingAllows(name, active));
  if (notGranted.length === 0) {
    // Nothing cut and nothing narrowed: the agent's own list, or none at all (pi's defaults), as before.
    return listed === undefined && narrowTo === undefined ? { notGranted: [] } : { tools: granted, notGranted: [] };
  }
  // A child without a list that lost tools keeps the session's read-only built-ins, so it can still search.
  const searchTools =
    listed === undefined && narrowTo === undefined ? READ_ONLY_BUILTINS.filter((name) => active.has(name)) : [];
  return { tools: unique([...granted, ...searchTools]), notGranted, reason: cutReason(active) };
}

function disallows(disallowed: readonly string[], tool: string): boolean {
  return disallowed.some((pattern) => patternCovers(pattern, tool) || matchesToolPattern(pattern, tool));
}

function joinReasons(...reasons: (string | undefined)[]): string | undefined {
  const present = reasons.filter((reason): reason is string => reason !== undefined && reason !== "");
  return present.length > 0 ? present.join("; ") : undefined;
}

export function grantTools(input: ToolGrantInput): ToolGrant {
  // An `mcp__…` name in an agent's tools is an MCP entry: MCP has its own ceiling.
  const listedAll = input.agentTools !== undefined ? unique(input.agentTools) : undefined;
  const listed = listedAll?.filter((name) => !isMcpToolName(name));
  const plain = grantPlainTools(input, listedAll === undefined ? undefined : (listed ?? []));
  const disallowed = unique(input.disallowed ?? []);
  const reach = input.session.mcp;
  let mcp: McpGrant | undefined;
  if (reach?.supported) {
    const entries = [...(input.agentMcp ?? []), ...(listedAll ?? []).filter(isMcpToolName)];
    mcp = grantMcp(entries, reach, input.ceiling !== "off");
    // A call's `tools` narrows MCP too: a pattern stays only when one of the call's entries covers it.
    const callMcp = input.callTools?.filter(isMcpToolName);
    if (input.callTools !== undefined)
      mcp.patterns = mcp.patterns.filter((pattern) => (callMcp ?? []).some((outer) => patternCovers(outer, pattern)));
    mcp.patterns = mcp.patterns.filter((pattern) => !disallowed.some((outer) => patternCovers(outer, pattern)));
    mcp.waysIn = mcp.waysIn.filter((tool) => !disallows(disallowed, tool));
  }
  let tools = plain.tools;
  if (mcp && mcp.patterns.length > 0)
    tools = unique([...(tools ?? defaultChildTools(input.session)), ...mcp.waysIn, ...mcp.patterns]);
  // Without MCP flags (pi 0.73.1) the list itself must leave them out; with them, an explicit list reads better too.
  if (disallowed.length > 0)
    tools = (tools ?? defaultChildTools(input.session)).filter(
      (tool) => isMcpToolName(tool) || !disallows(disallowed, tool),
    );
  const mcpCut = mcp?.cut ?? [];
  const grant: ToolGrant = {
    notGranted: [...plain.notGranted, ...mcpCut.map((cut) => cut.entry)],
    ...(tools !== undefined ? { tools } : {}),
  };
  const reason = joinReasons(
    plain.notGranted.length > 0 ? plain.reason : undefined,
    ...[...new Set(mcpCut.map((cut) => cut.reason))].map((why) => {
      const names = mcpCut.filter((cut) => cut.reason === why).map((cut) => cut.entry);
      return plain.notGranted.length > 0 || mcpCut.length > names.length ? `${names.join(", ")}: ${why}` : why;
    }),
  );
  if (reason !== undefined) grant.reason = reason;
  if (reach?.supported) grant.mcp = { exclude: unique([...(mcp?.exclude ?? []), ...disallowed]) };
  return grant;
}

/**
 * What a dispatch of `agent` grants, every step in order: its `mcp` and `disallowedTools` as the config layers leave
 * them, a shadowing project agent bounded by the agent it replaces, then the ceiling. The tool call and
 * `/subagent-agents` both ask this.
 */
export function grantAgentTools(
  agent: AgentDefinition,
  layers: ConfigLayers,
  input: Omit<ToolGrantInput, "agentTools" | "agentMcp" | "disallowed">,
): ToolGrant {
  const { mcp: _mcp, disallowedTools: _disallowed, ...rest } = agent;
  const bounded = protectedTools({ ...rest, ...resolveToolLimits(agent, layers) });
  const grant = grantTools({
    ...input,
    ...(bounded.tools ? { agentTools: bounded.tools } : {}),
    ...(bounded.mcp ? { agentMcp: bounded.mcp } : {}),
    ...(bounded.disallowed ? { disallowed: bounded.disallowed } : {}),
  });
  if (bounded.cut.length === 0 || !agent.shadows) return grant;
  const reason = replacedAgentText(agent.shadows);
  return {
    ...grant,
    tools: grant.tools ?? [],
    notGranted: [...bounded.cut, ...grant.notGranted],
    reason: grant.reason ? `${reason}; ${grant.reason}` : reason,
  };
}

/** `tools not granted: bash (the main session has read-only tools)`; undefined when nothing was cut. */
export function toolsNotGrantedText(grant: Pick<ToolGrant, "notGranted" | "reason">): string | undefined {
  if (grant.notGranted.length === 0) return undefined;
  return `tools not granted: ${grant.notGranted.join(", ")} (${grant.reason ?? "not active in the main session"})`;
}

/** `$toolCeiling` as the user file writes it; anything else keeps the ceiling (and says so). */
export function parseToolCeiling(raw: unknown): ToolCeilingSetting | undefined {
  return raw === "session" || raw === "off" ? raw : undefined;
}

/**
 * A resumed task's tools: no wider than the list it ran with (`recorded`; absent: it had pi's defaults, no list).
 * What the recorded list lacks is cut, and said so.
 */
export function keepRecordedTools(
  grant: ToolGrant,
  recorded: readonly string[] | undefined,
  agentTools: readonly string[] | undefined,
): ToolGrant {
  if (recorded === undefined) return grant;
  const wanted = grant.tools ?? agentTools ?? PI_DEFAULT_TOOLS;
  const tools = wanted.filter((tool) => recorded.includes(tool));
  const cut = wanted.filter((tool) => !recorded.includes(tool) && !grant.notGranted.includes(tool));
  if (cut.length === 0) return { ...grant, tools };
  const reason = "not among the tools the resumed task ran with";
  return {
    tools,
    notGranted: [...grant.notGranted, ...cut],
    reason: grant.reason ? `${grant.reason}; ${reason}` : reason,
  };
}

/**
 * A call's `verify` is a command the parent would run for the child: refused, before anything starts, when the
 * session has no `bash` among its active tools (a child never gets more than its parent). An agent's own `verify`
 * is part of its file, which the person installed or approved; only the ceiling `off` lifts this.
 */
export const CALL_VERIFY_NEEDS_BASH =
  "This call's verify was refused: a verify command is command execution, and bash is not among this session's active tools (a subagent never gets more than its parent). Dispatch without verify. Nothing was started.";

export function callVerifyProblem(
  callVerify: string | undefined,
  active: readonly string[],
  ceiling: ToolCeilingSetting,
): string | undefined {
  if (callVerify === undefined || ceiling === "off") return undefined;
  return active.includes("bash") ? undefined : CALL_VERIFY_NEEDS_BASH;
}

/*
 * The MCP side of the tool ceiling (pi 1.x; pi 0.73.1 has no MCP): what the main session can reach through MCP,
 * read from its command line and its active tools, and which of an agent's `mcp` entries its child may have. A
 * child that may reach no MCP tool starts with `--no-mcp` (no server process, no credentials handed to one); one
 * that may reach some gets exactly those as `--tools` patterns, the way in it needs (`codemode`, `tool_search`) and
 * the main session's `--exclude-tools`, so the bound holds for its own children too. Pure.
 */
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
