/**
 * Tool names and patterns as pi's `--tools` and `--exclude-tools` take them (`*` matches any characters), and the
 * MCP side of them: `mcp__<server>__<tool>` names, an agent's `mcp` entries, and which server a pattern reaches.
 * Pure.
 */

/** The prefix pi gives every MCP tool (pi 1.x: `mcp__<server>__<tool>`). */
export const MCP_PREFIX = "mcp__";
/** pi's rule for a server's name in `mcp.json`: letters, digits, `_` and `-`. */
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
/** A pattern's own characters: what a tool name may hold, plus `*`. */
const PATTERN = /^[A-Za-z0-9_*-]+$/;

/** Whether `name` matches `pattern`, where `*` matches any run of characters (as pi matches `--tools` entries). */
export function matchesToolPattern(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const parts = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`).test(name);
}

/** Whether every name `inner` matches is also matched by `outer` (sound for the patterns agents and flags use). */
export function patternCovers(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  // A literal inner: covered when outer matches it. A pattern inner: covered when outer's literal prefix and
  // suffix bound it and outer's middle is one `*` (`mcp__*` covers `mcp__probe__*`).
  if (!inner.includes("*")) return matchesToolPattern(outer, inner);
  const star = outer.indexOf("*");
  if (star < 0 || outer.indexOf("*", star + 1) >= 0) return false;
  const prefix = outer.slice(0, star);
  const suffix = outer.slice(star + 1);
  return inner.startsWith(prefix) && inner.endsWith(suffix) && inner.length >= prefix.length + suffix.length;
}

/** pi's name for an MCP server in a tool name: every character other than letters, digits and `_` becomes `_`. */
export function mcpServerToolPrefix(server: string): string {
  return `${MCP_PREFIX}${server.replace(/[^A-Za-z0-9_]/g, "_")}__`;
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX);
}

/** Why `entry` cannot be one of an agent's `mcp` entries (a server name or an `mcp__…` pattern), or undefined. */
export function mcpEntryProblem(entry: string): string | undefined {
  if (entry.startsWith(MCP_PREFIX)) {
    return PATTERN.test(entry) ? undefined : "an MCP tool pattern holds only letters, digits, _, - and *";
  }
  return SERVER_NAME.test(entry)
    ? undefined
    : "must be a server name (letters, digits, _ and -) or a pattern starting with mcp__";
}

/** The tool pattern an `mcp` entry stands for: a server name reaches all of its tools. */
export function mcpEntryPattern(entry: string): string {
  return entry.startsWith(MCP_PREFIX) ? entry : `${mcpServerToolPrefix(entry)}*`;
}

/**
 * The servers (as named in `mcp.json`) an MCP tool pattern may reach: those whose tools' prefix agrees with the
 * pattern up to its first `*` (so `mcp__*` reaches every server, and `mcp__gh__get_*` only `gh`).
 */
export function serversReachedBy(pattern: string, servers: readonly string[]): string[] {
  const star = pattern.indexOf("*");
  const head = star < 0 ? pattern : pattern.slice(0, star);
  return servers.filter((server) => {
    const prefix = mcpServerToolPrefix(server);
    return star < 0 ? head.startsWith(prefix) : prefix.startsWith(head) || head.startsWith(prefix);
  });
}
