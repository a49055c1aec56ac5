import { describe, expect, it } from "vitest";
import { firstUseQuestion, guardedChangedNotice } from "../../../src/authority/trust.ts";

describe("the first-use question shows what the file may do", () => {
  it("names its tools, sandbox, the agent it replaces and the first lines of its prompt, without control sequences", () => {
    const body =
      "\nLine one \u001b]52;c;Zm9v\u0007of the prompt.\nLine two.\n\nLine three.\nLine four.\nLine five.\nLine six.\n";
    const text = firstUseQuestion({
      agent: {
        name: "explore",
        filePath: "/w/.pi/agents/explore.md",
        tools: ["read", "bash"],
        body,
        shadows: { name: "explore", source: "builtin", filePath: "/p/explore.md" },
      },
      sandbox: "read-only, from the agent's frontmatter",
    });
    expect(text.split("\n")).toEqual([
      'The model wants to run the subagent "explore", defined by this project in /w/.pi/agents/explore.md. pi has no trust decision for this project, so you are asked once for each version of this file.',
      "Tools: read, bash",
      "Sandbox: read-only, from the agent's frontmatter",
      'Replaces: the built-in agent "explore" (it keeps that agent\'s sandbox at least and its tools at most)',
      "Prompt:",
      "  Line one of the prompt.",
      "  Line two.",
      "  Line three.",
      "  Line four.",
      "  … (2 more lines in the file)",
      "Run it?",
    ]);
  });
  it("says when there is no tools list, and names at most three changed files", () => {
    expect(
      firstUseQuestion({ agent: { name: "w", filePath: "/w.md", body: "" }, sandbox: "none (off, from the default)" }),
    ).toContain(
      "Tools: pi's defaults (read, bash, edit, write) and every extension tool\nSandbox: none (off, from the default)\nPrompt:\n  (empty)",
    );
    expect(guardedChangedNotice(["/a", "/b", "/c", "/d", "/e"])).toContain("(/a, /b, /c and 2 more)");
  });
  it("names the MCP servers a project agent asks for", () => {
    const text = firstUseQuestion({
      agent: { name: "w", filePath: "/w.md", body: "", tools: ["read"], mcp: ["github", "mcp__jira__get_*"] },
      sandbox: "none (off, from the default)",
    });
    expect(text).toContain(
      "Tools: read\nMCP servers: github, mcp__jira__get_* (pi 1.x, where the main session reaches them)\nSandbox:",
    );
  });
});
