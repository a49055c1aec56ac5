import { describe, expect, it } from "vitest";
import type { AgentDefinition, AgentSource } from "../../../src/agents/parse.ts";
import { appendRoster } from "../../../src/roster/roster-cache.ts";
import { buildRosterBlock, MAX_ROSTER_AGENTS, overflowLine, rosterLine } from "../../../src/roster/roster.ts";

const agent = (
  name: string,
  description: string,
  source: AgentSource,
): Pick<AgentDefinition, "name" | "description" | "source"> => ({
  name,
  description,
  source,
});

describe("buildRosterBlock", () => {
  it("is exactly the spec's block: heading, intro, one `name — description (source)` line per agent", () => {
    const block = buildRosterBlock([
      agent("coder", "Writes and refactors code", "project"),
      agent("explore", "Finds code fast", "builtin"),
      agent("writer", "Writes docs and READMEs", "user"),
    ]);
    expect(block).toBe(
      [
        "## Available Subagents",
        "",
        "Delegate tasks to these specialized subagents via the `subagent` tool:",
        "",
        "- coder \u2014 Writes and refactors code (project)",
        "- explore \u2014 Finds code fast (builtin)",
        "- writer \u2014 Writes docs and READMEs (user)",
      ].join("\n"),
    );
  });

  it("uses U+2014 as the separator", () => {
    expect(rosterLine(agent("a", "b", "user"))).toBe("- a \u2014 b (user)");
    expect(rosterLine(agent("a", "b", "user")).codePointAt(4)).toBe(0x2014);
  });

  it("flattens newlines, tabs and runs of whitespace in a description to single spaces", () => {
    expect(rosterLine(agent("a", "First line.\n\n  Second\tline.\r\nThird.\n", "builtin"))).toBe(
      "- a \u2014 First line. Second line. Third. (builtin)",
    );
  });

  it("caps a description at 200 characters, ending it with an ellipsis", () => {
    const line = rosterLine(agent("long", "x".repeat(500), "user"));
    const description = line.slice("- long \u2014 ".length, -" (user)".length);
    expect(description).toHaveLength(200);
    expect(description.endsWith("\u2026")).toBe(true);
    expect(rosterLine(agent("fits", "y".repeat(200), "user"))).toBe(`- fits \u2014 ${"y".repeat(200)} (user)`);
  });

  it("is nothing when there are no agents", () => {
    expect(buildRosterBlock([])).toBeUndefined();
  });

  it("lists 40 agents in full", () => {
    const agents = Array.from({ length: MAX_ROSTER_AGENTS }, (_, i) =>
      agent(`a${String(i).padStart(2, "0")}`, "d", "user"),
    );
    const lines = buildRosterBlock(agents)!.split("\n");
    expect(MAX_ROSTER_AGENTS).toBe(40);
    expect(lines).toHaveLength(4 + 40);
    expect(lines.at(-1)).toBe("- a39 \u2014 d (user)");
  });

  it("past 40 agents lists the first 40 and one line counting the rest", () => {
    const agents = Array.from({ length: 45 }, (_, i) => agent(`a${String(i).padStart(2, "0")}`, "d", "project"));
    const lines = buildRosterBlock(agents)!.split("\n");
    expect(lines).toHaveLength(4 + 40 + 1);
    expect(lines[4 + 39]).toBe("- a39 \u2014 d (project)");
    expect(lines.at(-1)).toBe(
      "(5 more subagents are not listed here; calling the `subagent` tool with an unknown agent name returns an error that lists every available name.)",
    );
    expect(lines.join("\n")).not.toContain("a40");
  });

  it("words the overflow line for one hidden agent, without em dashes", () => {
    expect(overflowLine(1)).toBe(
      "(1 more subagent is not listed here; calling the `subagent` tool with an unknown agent name returns an error that lists every available name.)",
    );
    expect(overflowLine(3)).not.toContain("\u2014");
  });
});

describe("appendRoster", () => {
  it("puts the block at the end after one blank line, the prompt untouched in front", () => {
    expect(appendRoster("You are pi.\nRules.", "## Available Subagents")).toBe(
      "You are pi.\nRules.\n\n## Available Subagents",
    );
  });

  it("does not pile up blank lines after a prompt that ends with newlines", () => {
    expect(appendRoster("You are pi.\n\n", "B")).toBe("You are pi.\n\nB");
  });

  it("is just the block for an empty prompt", () => {
    expect(appendRoster("", "B")).toBe("B");
  });

  it("adds the roster once when the prompt it gets already ends with it (pi 1.x runs the hook for every run)", () => {
    const once = appendRoster("You are pi.", "## Available Subagents\n- worker");
    expect(appendRoster(once, "## Available Subagents\n- worker")).toBe(once);
  });
});
