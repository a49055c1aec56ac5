import { describe, expect, it } from "vitest";
import {
  AGENT_NAME_ENV,
  DEPTH_ENV,
  isInsideSubagent,
  readSubagentDepth,
  childMcpPatterns,
} from "../../../src/shared/nesting.ts";

describe("readSubagentDepth", () => {
  it("uses the documented variable names", () => {
    expect(DEPTH_ENV).toBe("PI_SUBAGENT_DEPTH");
    expect(AGENT_NAME_ENV).toBe("PI_CURRENT_AGENT_NAME");
  });

  it("is 0 for the main agent (variable unset or blank)", () => {
    expect(readSubagentDepth({})).toBe(0);
    expect(readSubagentDepth({ [DEPTH_ENV]: "" })).toBe(0);
    expect(readSubagentDepth({ [DEPTH_ENV]: "  " })).toBe(0);
  });

  it("reads a numeric depth", () => {
    expect(readSubagentDepth({ [DEPTH_ENV]: "1" })).toBe(1);
    expect(readSubagentDepth({ [DEPTH_ENV]: " 2 " })).toBe(2);
    expect(readSubagentDepth({ [DEPTH_ENV]: "1.7" })).toBe(1);
  });

  it("counts a non-numeric or negative value as 0", () => {
    expect(readSubagentDepth({ [DEPTH_ENV]: "deep" })).toBe(0);
    expect(readSubagentDepth({ [DEPTH_ENV]: "1x" })).toBe(0);
    expect(readSubagentDepth({ [DEPTH_ENV]: "-3" })).toBe(0);
    expect(readSubagentDepth({ [DEPTH_ENV]: "Infinity" })).toBe(0);
    expect(readSubagentDepth({ [DEPTH_ENV]: "NaN" })).toBe(0);
  });

  it("marks depth >= 1 as inside a subagent", () => {
    expect(isInsideSubagent({})).toBe(false);
    expect(isInsideSubagent({ [DEPTH_ENV]: "0" })).toBe(false);
    expect(isInsideSubagent({ [DEPTH_ENV]: "1" })).toBe(true);
    expect(isInsideSubagent({ [DEPTH_ENV]: "abc" })).toBe(false);
  });
});

describe("nesting limit (PI_SUBAGENT_MAX_DEPTH)", () => {
  it("parses whole numbers from 1 to the cap, nothing else", async () => {
    const { parseMaxDepth, MAX_DEPTH_CAP } = await import("../../../src/shared/nesting.ts");
    expect(MAX_DEPTH_CAP).toBe(5);
    expect(parseMaxDepth("2")).toBe(2);
    expect(parseMaxDepth(" 3 ")).toBe(3);
    expect(parseMaxDepth(5)).toBe(5);
    for (const bad of ["0", "6", "1.5", "two", "", undefined, null, -1]) expect(parseMaxDepth(bad)).toBeUndefined();
  });

  it("lets the main agent dispatch always, and a child only below the limit its parent passed", async () => {
    const { mayDispatchSubagents } = await import("../../../src/shared/nesting.ts");
    expect(mayDispatchSubagents({})).toBe(true);
    expect(mayDispatchSubagents({ PI_SUBAGENT_DEPTH: "1" })).toBe(false);
    expect(mayDispatchSubagents({ PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_MAX_DEPTH: "2" })).toBe(true);
    expect(mayDispatchSubagents({ PI_SUBAGENT_DEPTH: "2", PI_SUBAGENT_MAX_DEPTH: "2" })).toBe(false);
    expect(mayDispatchSubagents({ PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_MAX_DEPTH: "junk" })).toBe(false);
  });

  it("never lets a sandboxed child dispatch, though it is below the limit (the entry then gives it the refusing tool)", async () => {
    const { isBelowDepthLimit, mayDispatchSubagents, readSandboxEnv } = await import("../../../src/shared/nesting.ts");
    const env = { PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_MAX_DEPTH: "2", PI_SUBAGENT_SANDBOX: "read-only" };
    expect(isBelowDepthLimit(env)).toBe(true);
    expect(mayDispatchSubagents(env)).toBe(false);
    expect(readSandboxEnv(env)).toBe("read-only");
    expect(readSandboxEnv({ PI_SUBAGENT_SANDBOX: " " })).toBeUndefined();
  });
});

describe("what of the subagent tool a process's model sees (subagentToolSurface)", () => {
  it("nothing at the depth limit, sandboxed or not, however deep the limit", async () => {
    const { subagentToolSurface } = await import("../../../src/shared/nesting.ts");
    expect(subagentToolSurface({ PI_SUBAGENT_DEPTH: "1" })).toBe("none");
    expect(subagentToolSurface({ PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_MAX_DEPTH: "junk" })).toBe("none");
    expect(subagentToolSurface({ PI_SUBAGENT_DEPTH: "2", PI_SUBAGENT_MAX_DEPTH: "2" })).toBe("none");
    expect(subagentToolSurface({ PI_SUBAGENT_DEPTH: "3", PI_SUBAGENT_MAX_DEPTH: "2" })).toBe("none");
    expect(subagentToolSurface({ PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_SANDBOX: "workspace-write" })).toBe("none");
  });

  it("a refusing tool in a sandboxed child below the limit, the working tool elsewhere below it", async () => {
    const { subagentToolSurface } = await import("../../../src/shared/nesting.ts");
    const below = { PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_MAX_DEPTH: "2" };
    expect(subagentToolSurface({ ...below, PI_SUBAGENT_SANDBOX: "read-only" })).toBe("refusing");
    expect(subagentToolSurface(below)).toBe("working");
    expect(subagentToolSurface({})).toBe("working");
  });
});

describe("a subagent's granted MCP patterns (childMcpPatterns)", () => {
  const argv = ["node", "pi", "--mode", "rpc", "--no-mcp", "--tools", "read,mcp__probe__*"];
  it("are read only in a subagent started with --no-mcp", () => {
    const env = { PI_SUBAGENT_MCP_TOOLS: "mcp__probe__*", PI_SUBAGENT_DEPTH: "1" };
    expect(childMcpPatterns(env, argv)).toBe("mcp__probe__*");
    // Set by hand in a main pi, or beside pi's own MCP: ignored (a second MCP would run beside the first).
    expect(childMcpPatterns({ PI_SUBAGENT_MCP_TOOLS: "mcp__probe__*" }, argv)).toBeUndefined();
    expect(childMcpPatterns(env, ["node", "pi", "--tools", "read"])).toBeUndefined();
    expect(childMcpPatterns({ PI_SUBAGENT_DEPTH: "1" }, argv)).toBeUndefined();
  });
});
