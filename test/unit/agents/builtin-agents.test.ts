import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAgentsDir } from "../../../src/agents/discover.ts";
import { BUILTIN_AGENTS_DIR } from "../../../src/shared/this-process.ts";

const READ_ONLY_TOOLS = ["read", "grep", "find", "ls"];

describe("the built-in agents shipped in agents/", () => {
  const { agents, warnings } = readAgentsDir(BUILTIN_AGENTS_DIR, "builtin");
  const byName = new Map(agents.map((agent) => [agent.name, agent]));

  it("are exactly general-purpose, explore, planner and reviewer, all valid", () => {
    expect(warnings).toEqual([]);
    expect(agents.map((a) => a.name)).toEqual(["explore", "general-purpose", "planner", "reviewer"]);
    expect(readdirSync(BUILTIN_AGENTS_DIR).sort()).toEqual([
      "explore.md",
      "general-purpose.md",
      "planner.md",
      "reviewer.md",
    ]);
  });

  it("general-purpose has no tool allowlist, so it gets every tool a plain pi session has", () => {
    expect(byName.get("general-purpose")?.tools).toBeUndefined();
  });

  it("explore, planner and reviewer are read-only: read, grep, find and ls, never bash, edit or write", () => {
    for (const name of ["explore", "planner", "reviewer"]) expect(byName.get(name)?.tools).toEqual(READ_ONLY_TOOLS);
  });

  it("leave model and thinking to the configuration (inherit by default) and load global skills", () => {
    for (const agent of agents) {
      expect(agent.model).toBeUndefined();
      expect(agent.thinking).toBeUndefined();
      expect(agent.skills).toBeUndefined();
    }
  });

  it("have a one-line description that fits the roster cap and a real prompt body", () => {
    for (const agent of agents) {
      expect(agent.description).not.toMatch(/\n/);
      expect(agent.description.length).toBeLessThanOrEqual(200);
      expect(agent.body.length).toBeGreaterThan(400);
    }
  });

  it("use no em dashes in the text the model reads", () => {
    for (const file of readdirSync(BUILTIN_AGENTS_DIR)) {
      expect(readFileSync(join(BUILTIN_AGENTS_DIR, file), "utf8")).not.toContain("\u2014");
    }
  });
});
