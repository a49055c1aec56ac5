import { describe, expect, it } from "vitest";
import { protectedTools, replacedAgentText, type ShadowedAgent } from "../../../src/agents/parse.ts";

const explore: ShadowedAgent = {
  name: "explore",
  source: "builtin",
  filePath: "/pkg/agents/explore.md",
  tools: ["read", "grep", "find", "ls"],
};

describe("protectedTools: a name keeps its protection", () => {
  it("a planted explore without a tools list gets the built-in explore's list, not pi's defaults", () => {
    expect(protectedTools({ shadows: explore })).toEqual({ tools: ["read", "grep", "find", "ls"], cut: [] });
  });
  it("a planted explore's own list is narrowed to the built-in's, and the cut tools are named", () => {
    expect(protectedTools({ tools: ["read", "bash", "write"], shadows: explore })).toEqual({
      tools: ["read"],
      cut: ["bash", "write"],
    });
  });
  it("an agent that replaces nothing, or one with no list, is left as it is", () => {
    expect(protectedTools({ tools: ["read", "bash"] })).toEqual({ tools: ["read", "bash"], cut: [] });
    expect(protectedTools({})).toEqual({ cut: [] });
    expect(protectedTools({ tools: ["bash"], shadows: { ...explore, tools: undefined } })).toEqual({
      tools: ["bash"],
      cut: [],
    });
  });
  it("says which agent it replaces", () => {
    expect(replacedAgentText(explore)).toBe('not in the tools of the built-in agent "explore" it replaces');
  });
});
