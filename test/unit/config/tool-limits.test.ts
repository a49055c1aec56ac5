import { describe, expect, it } from "vitest";
import { parseConfigLayer } from "../../../src/config/load.ts";
import { resolveToolLimits } from "../../../src/config/resolve.ts";

const layer = (entries: Record<string, unknown>, name: "user" | "project") =>
  parseConfigLayer(JSON.stringify(entries), name, `/${name}/subagent-isolation.json`);

describe("an agent's mcp and disallowedTools in the config files", () => {
  it("reads both as lists, keeping the valid mcp entries and naming the others", () => {
    const read = layer({ docs: { mcp: ["probe", "mcp__gh__get_*", "bad name"], disallowedTools: ["bash"] } }, "user");
    expect(read.entries["docs"]).toEqual({ mcp: ["probe", "mcp__gh__get_*"], disallowedTools: ["bash"] });
    expect(read.warnings.join("\n")).toContain('"mcp" entry "bad name"');
    expect(layer({ docs: { mcp: "probe" } }, "user").warnings.join("\n")).toContain('"mcp" must be a list');
  });

  it("lets the user's entry replace the frontmatter's mcp, and a project's only narrow it", () => {
    const agent = { name: "docs", mcp: ["probe"] };
    const user = layer({ docs: { mcp: ["probe", "gh"] } }, "user");
    expect(resolveToolLimits(agent, { user })).toEqual({ mcp: ["probe", "gh"] });
    const narrowing = layer({ docs: { mcp: ["mcp__gh__get_*", "gh", "jira"] } }, "project");
    // `jira` is not the agent's: a project file cannot add it.
    expect(resolveToolLimits(agent, { user, project: narrowing })).toEqual({ mcp: ["gh"] });
    expect(resolveToolLimits(agent, { project: layer({ docs: { mcp: ["jira"] } }, "project") })).toEqual({});
  });

  it("adds up disallowedTools from the frontmatter and every layer", () => {
    const limits = resolveToolLimits(
      { name: "docs", disallowedTools: ["bash"] },
      {
        user: layer({ docs: { disallowedTools: ["write"] } }, "user"),
        project: layer({ docs: { disallowedTools: ["mcp__*", "bash"] } }, "project"),
      },
    );
    expect(limits).toEqual({ disallowedTools: ["bash", "write", "mcp__*"] });
  });
});
