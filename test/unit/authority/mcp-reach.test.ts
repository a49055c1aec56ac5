import { describe, expect, it } from "vitest";
import { grantMcp, readMainToolFlags, type MainMcpReach } from "../../../src/authority/tool-ceiling.ts";
import { grantTools, toolsNotGrantedText } from "../../../src/authority/tool-ceiling.ts";

const reach = (argv: string[], active: string[] = ["read", "bash", "edit", "write", "codemode", "subagent"]) =>
  ({ supported: true, flags: readMainToolFlags(argv), active }) satisfies MainMcpReach;

describe("readMainToolFlags: pi's tool flags as pi reads them", () => {
  it("reads --no-mcp, --no-tools and -nt", () => {
    expect(readMainToolFlags(["--no-mcp"])).toMatchObject({ noMcp: true, noTools: false });
    expect(readMainToolFlags(["-nt"])).toMatchObject({ noMcp: false, noTools: true });
  });
  it("keeps a plain --tools list's mcp__ entries, and only those, as the MCP filter; the last list wins", () => {
    expect(readMainToolFlags(["--tools", "read,codemode,mcp__gh__*"]).mcpAllow).toEqual(["mcp__gh__*"]);
    expect(readMainToolFlags(["-t", "read"]).mcpAllow).toBeUndefined();
    expect(readMainToolFlags(["--tools", "mcp__a__*", "--tools", "read"]).mcpAllow).toBeUndefined();
    // `+name`/`-name` entries change pi's defaults and never filter MCP tools.
    expect(readMainToolFlags(["--tools", "+codemode,-write"]).mcpAllow).toBeUndefined();
  });
  it("reads --exclude-tools and -xt as a comma list", () => {
    expect(readMainToolFlags(["--exclude-tools", "mcp__probe__*, bash"]).exclude).toEqual(["mcp__probe__*", "bash"]);
    expect(readMainToolFlags(["-xt", "write"]).exclude).toEqual(["write"]);
  });
});

describe("grantMcp: a child reaches no MCP tool its main session cannot", () => {
  it("grants nothing without entries, and nothing on a pi without MCP", () => {
    expect(grantMcp(undefined, reach([]), true)).toMatchObject({ patterns: [], cut: [] });
    expect(grantMcp(["probe"], { ...reach([]), supported: false }, true)).toMatchObject({ patterns: [], cut: [] });
  });
  it("turns a server name into its tools' pattern and adds the way in the main session has", () => {
    expect(grantMcp(["probe", "mcp__gh__get_*"], reach([]), true)).toEqual({
      patterns: ["mcp__probe__*", "mcp__gh__get_*"],
      waysIn: ["codemode"],
      exclude: [],
      cut: [],
    });
  });
  it("cuts everything in a --no-mcp or --no-tools session, naming why", () => {
    expect(grantMcp(["probe"], reach(["--no-mcp"]), true).cut).toEqual([
      { entry: "probe", reason: "MCP is off in the main session: --no-mcp" },
    ]);
    expect(grantMcp(["probe"], reach(["--no-tools"]), true).patterns).toEqual([]);
  });
  it("cuts what the main session's --exclude-tools covers, and hands the rest of its exclusions down", () => {
    const grant = grantMcp(["probe", "gh"], reach(["--exclude-tools", "mcp__probe__*,mcp__gh__delete_*"]), true);
    expect(grant.patterns).toEqual(["mcp__gh__*"]);
    expect(grant.cut).toEqual([
      { entry: "probe", reason: "excluded in the main session: --exclude-tools mcp__probe__*" },
    ]);
    expect(grant.exclude).toEqual(["mcp__probe__*", "mcp__gh__delete_*"]);
    expect(grantMcp(["gh"], reach(["-xt", "mcp__*"]), true).cut[0]?.reason).toBe(
      "the main session excludes every MCP tool",
    );
  });
  it("keeps only what a main --tools list's mcp__ entries cover", () => {
    const grant = grantMcp(["probe", "gh"], reach(["--tools", "read,codemode,mcp__gh__*"]), true);
    expect(grant.patterns).toEqual(["mcp__gh__*"]);
    expect(grant.cut.map((cut) => cut.entry)).toEqual(["probe"]);
  });
  it("cuts what the main session cannot reach at all: no MCP tool, codemode or tool_search active", () => {
    expect(grantMcp(["probe"], reach([], ["read", "bash"]), true).cut[0]?.reason).toMatch(/not reachable/);
    // A direct tool of the server active in the main session is reach enough.
    expect(grantMcp(["probe"], reach([], ["read", "mcp__probe__echo"]), true)).toMatchObject({
      patterns: ["mcp__probe__*"],
      waysIn: [],
    });
  });
  it("keeps every entry when the person lifted the ceiling", () => {
    expect(grantMcp(["probe"], reach(["--no-mcp"]), false).patterns).toEqual(["mcp__probe__*"]);
  });
});

describe("grantTools with MCP and disallowedTools", () => {
  const session = (argv: string[] = [], active = ["read", "bash", "edit", "write", "codemode", "subagent"]) => ({
    active,
    extensionTools: ["subagent"],
    mcp: reach(argv, active),
  });
  it("leaves an agent without mcp entries its list (or none) and marks the grant for --no-mcp", () => {
    expect(grantTools({ session: session(), ceiling: "session" })).toEqual({ notGranted: [], mcp: { exclude: [] } });
  });
  it("gives an agent with mcp entries an explicit list: its tools (or pi's defaults), the way in, the patterns", () => {
    expect(grantTools({ agentMcp: ["probe"], session: session(), ceiling: "session" })).toEqual({
      tools: ["read", "bash", "edit", "write", "codemode", "mcp__probe__*"],
      notGranted: [],
      mcp: { exclude: [] },
    });
    // An mcp__ name in the agent's tools is an MCP entry.
    expect(
      grantTools({ agentTools: ["read", "mcp__probe__echo"], session: session(), ceiling: "session" }).tools,
    ).toEqual(["read", "codemode", "mcp__probe__echo"]);
  });
  it("names a cut MCP entry in the receipt's line, beside cut tools", () => {
    const grant = grantTools({
      agentTools: ["read", "bash"],
      agentMcp: ["probe"],
      session: session(["--no-mcp"], ["read", "grep"]),
      ceiling: "session",
    });
    expect(toolsNotGrantedText(grant)).toBe(
      "tools not granted: bash, probe (the main session has read-only tools; probe: MCP is off in the main session: --no-mcp)",
    );
  });
  it("a call's tools narrow MCP too: a pattern stays only when the call names it", () => {
    const base = { agentMcp: ["probe", "gh"], session: session(), ceiling: "session" as const };
    expect(grantTools({ ...base, callTools: ["read", "mcp__gh__*"] }).tools).toEqual([
      "read",
      "codemode",
      "mcp__gh__*",
    ]);
    expect(grantTools({ ...base, callTools: ["read"] }).tools).toEqual(["read"]);
  });
  it("removes disallowedTools last, from the list and the patterns, and hands them to --exclude-tools", () => {
    const grant = grantTools({
      agentMcp: ["probe"],
      disallowed: ["bash", "mcp__probe__*"],
      session: session(["-xt", "mcp__gh__*"]),
      ceiling: "session",
    });
    expect(grant.tools).toEqual(["read", "edit", "write"]);
    expect(grant.mcp).toEqual({ exclude: ["mcp__gh__*", "bash", "mcp__probe__*"] });
    expect(grant.notGranted).toEqual([]);
  });
  it("on a pi without MCP, disallowedTools make the list explicit, with nothing for MCP", () => {
    const grant = grantTools({
      disallowed: ["bash", "wr*"],
      session: { active: ["read", "bash", "edit", "write", "web", "subagent"], extensionTools: ["subagent", "web"] },
      ceiling: "session",
    });
    expect(grant).toEqual({ tools: ["read", "edit", "web"], notGranted: [] });
  });
});
