import { describe, expect, it } from "vitest";
import {
  matchesToolPattern,
  mcpEntryPattern,
  mcpEntryProblem,
  mcpServerToolPrefix,
  patternCovers,
  serversReachedBy,
} from "../../../src/shared/tool-patterns.ts";

describe("tool patterns as pi takes them", () => {
  it("matches * against any run of characters, and nothing else specially", () => {
    expect(matchesToolPattern("mcp__probe__*", "mcp__probe__echo")).toBe(true);
    expect(matchesToolPattern("mcp__probe__*", "mcp__prober__echo")).toBe(false);
    expect(matchesToolPattern("read", "read")).toBe(true);
    expect(matchesToolPattern("re.d", "read")).toBe(false);
  });
  it("tells when one pattern covers every name of another", () => {
    expect(patternCovers("mcp__*", "mcp__probe__*")).toBe(true);
    expect(patternCovers("mcp__probe__*", "mcp__probe__echo")).toBe(true);
    expect(patternCovers("mcp__probe__e*", "mcp__probe__*")).toBe(false);
    expect(patternCovers("mcp__a__*", "mcp__b__*")).toBe(false);
  });
  it("names a server's tools as pi does: characters other than letters, digits and _ become _", () => {
    expect(mcpServerToolPrefix("dev-radius")).toBe("mcp__dev_radius__");
    expect(mcpEntryPattern("dev-radius")).toBe("mcp__dev_radius__*");
    expect(mcpEntryPattern("mcp__gh__get_*")).toBe("mcp__gh__get_*");
  });
  it("accepts server names and mcp__ patterns as mcp entries, nothing else", () => {
    expect(mcpEntryProblem("github")).toBeUndefined();
    expect(mcpEntryProblem("mcp__github__*")).toBeUndefined();
    expect(mcpEntryProblem("git hub")).toMatch(/server name/);
    expect(mcpEntryProblem("mcp__a;rm")).toMatch(/only letters/);
  });
  it("finds the servers a pattern may reach", () => {
    const servers = ["probe", "prober", "gh"];
    expect(serversReachedBy("mcp__probe__*", servers)).toEqual(["probe"]);
    expect(serversReachedBy("mcp__probe__echo", servers)).toEqual(["probe"]);
    expect(serversReachedBy("mcp__pro*", servers)).toEqual(["probe", "prober"]);
    expect(serversReachedBy("mcp__*", servers)).toEqual(servers);
  });
});
