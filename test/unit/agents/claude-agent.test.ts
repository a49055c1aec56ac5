/**
 * Claude Code's agent files as they are: each row of the mapping (docs/agents.md, "Claude Code's agent files"),
 * what is named as not mapped, model words with and without `$models`, `permissionMode: plan`, and `$claudeAgents`.
 */
import { describe, expect, it } from "vitest";
import { parseAgentFile, type ParsedAgentFile } from "../../../src/agents/parse.ts";
import {
  mapClaudeTools,
  modelForWord,
  notMappedText,
  readClaudeAgentsSetting,
} from "../../../src/agents/claude-agent.ts";
import { claudeWordModel, resolveModelConfig } from "../../../src/config/resolve.ts";
import { emptyLayer, parseConfigLayer } from "../../../src/config/load.ts";
import { authoritySettingsOf, withAuthorityAtStart } from "../../../src/authority/trust.ts";

function claudeFile(frontmatter: string, body = "You review code."): string {
  return `---\nname: reviewer\ndescription: Reviews code\n${frontmatter}\n---\n${body}\n`;
}

function parsed(frontmatter: string): Extract<ParsedAgentFile, { ok: true }> {
  const result = parseAgentFile(claudeFile(frontmatter), "/p/.claude/agents/reviewer.md", "project", "claude");
  if (!result.ok) throw new Error(result.reason);
  return result;
}

describe("Claude Code's tool names", () => {
  it("maps each of Claude's tools to pi's: Read, Edit, MultiEdit, Write, Bash, Grep, Glob, LS", () => {
    expect(mapClaudeTools(["Read", "Edit", "MultiEdit", "Write", "Bash", "Grep", "Glob", "LS"])).toEqual({
      tools: ["read", "edit", "write", "bash", "grep", "find", "ls"],
      mcp: [],
      notMapped: [],
    });
  });

  it("accepts pi's own names, keeps mcp__ names apart and names the rest as not mapped", () => {
    expect(mapClaudeTools(["read", "mcp__github__get_issue", "WebFetch", "Task", "Bash(git:*)", "find"])).toEqual({
      tools: ["read", "find"],
      mcp: ["mcp__github__get_issue"],
      notMapped: ["WebFetch", "Task", "Bash(git:*)"],
    });
  });
});

describe("a Claude Code agent file, parsed", () => {
  it("takes tools as a comma string: `Read, Grep, Glob` is read, grep, find, and the body is the system prompt", () => {
    const { agent, notMapped } = parsed("tools: Read, Grep, Glob\nmodel: inherit");
    expect(agent).toMatchObject({
      name: "reviewer",
      description: "Reviews code",
      tools: ["read", "grep", "find"],
      body: "You review code.",
      source: "project",
      dialect: "claude",
    });
    expect(agent.model).toBeUndefined();
    expect(agent.claudeModel).toBeUndefined();
    expect(notMapped).toBeUndefined();
  });

  it("takes tools as a YAML list, and no tools key means pi's default tools (no list)", () => {
    expect(parsed("tools:\n  - Read\n  - Bash").agent.tools).toEqual(["read", "bash"]);
    expect(parsed("color: blue").agent.tools).toBeUndefined();
  });

  it("names unknown tools once and drops them; a list of only unknown tools gives no tools, never all of pi's", () => {
    const some = parsed("tools: Read, WebFetch, TodoWrite");
    expect(some.agent.tools).toEqual(["read"]);
    expect(some.notMapped).toEqual(["tools WebFetch, TodoWrite"]);
    const none = parsed("tools: WebFetch, NotebookEdit");
    expect(none.agent.tools).toEqual([]);
    expect(none.notMapped).toEqual(["tools WebFetch, NotebookEdit"]);
  });

  it("sends mcp__ tools and mcpServers names to mcp, and names an inline server", () => {
    const { agent, notMapped } = parsed(
      "tools: Read, mcp__github__get_issue\nmcpServers:\n  - slack\n  - local:\n      command: ./server",
    );
    expect(agent.tools).toEqual(["read"]);
    expect(agent.mcp).toEqual(["mcp__github__get_issue", "slack"]);
    expect(notMapped).toEqual(["mcpServers local (an inline server)"]);
  });

  it("maps disallowedTools the same way", () => {
    const { agent, notMapped } = parsed("disallowedTools: Bash, Write, mcp__github__*, WebSearch");
    expect(agent.disallowedTools).toEqual(["bash", "write", "mcp__github__*"]);
    expect(notMapped).toEqual(["disallowedTools WebSearch"]);
  });

  it("model: inherit is none, a word is kept for matching, provider/id is kept, anything else inherits with a note", () => {
    expect(parsed("model: inherit").agent.model).toBeUndefined();
    const word = parsed("model: sonnet").agent;
    expect(word.model).toBeUndefined();
    expect(word.claudeModel).toBe("sonnet");
    expect(parsed("model: anthropic/claude-opus-4-5").agent.model).toBe("anthropic/claude-opus-4-5");
    const other = parsed("model: opusplan");
    expect(other.agent.model).toBeUndefined();
    expect(other.notMapped).toEqual(['model "opusplan" (the main agent\'s model is used)']);
  });

  it("permissionMode: plan runs read-only; other modes are named", () => {
    expect(parsed("permissionMode: plan").agent.sandbox).toBe("read-only");
    const edits = parsed("permissionMode: acceptEdits");
    expect(edits.agent.sandbox).toBeUndefined();
    expect(edits.notMapped).toEqual(['permissionMode "acceptEdits"']);
  });

  it("keeps maxTurns, isolation: worktree and skills; a skill's name is its folder beside the agents folder", () => {
    const { agent, notMapped } = parsed("maxTurns: 12\nisolation: worktree\nskills: [lint, ./tools/review]");
    expect(agent).toMatchObject({
      maxTurns: 12,
      isolation: "worktree",
      skills: ["/p/.claude/skills/lint", "./tools/review"],
    });
    expect(notMapped).toBeUndefined();
  });

  it("names background, hooks, memory and our own keys once, never breaking the agent; color is only drawn, and dropped quietly", () => {
    const { agent, notMapped } = parsed(
      "background: true\ncolor: blue\nhooks: {}\nmemory: project\nsandbox: off\nverify: rm -rf /",
    );
    expect(agent.sandbox).toBeUndefined();
    expect(agent.verify).toBeUndefined();
    expect(notMapped).toEqual(["background, hooks, memory, sandbox, verify"]);
    expect(notMappedText(notMapped ?? [])).toBe(
      "not mapped from Claude Code: background, hooks, memory, sandbox, verify; the agent loads without it",
    );
  });

  it("reads a one-line description holding `: ` as Claude Code does, which YAML alone refuses", () => {
    const text =
      "---\nname: reviewer\ndescription: Use this agent after a change. Examples: <example>Context: the user wrote code</example>\ntools: Read\n---\nbody\n";
    const result = parseAgentFile(text, "/p/.claude/agents/reviewer.md", "project", "claude");
    expect(result.ok && result.agent.description).toBe(
      "Use this agent after a change. Examples: <example>Context: the user wrote code</example>",
    );
    // Our own files stay strict YAML.
    expect(parseAgentFile(text, "/p/.pi/agents/reviewer.md", "project").ok).toBe(false);
    // A file that is not YAML even so is skipped with YAML's complaint.
    const broken = parseAgentFile("---\nname: [x\n---\nbody\n", "/a.md", "user", "claude");
    expect(broken.ok).toBe(false);
  });

  it("still requires name and description", () => {
    const result = parseAgentFile("---\ndescription: x\ntools: Read\n---\nbody\n", "/a.md", "user", "claude");
    expect(result).toEqual({ ok: false, reason: 'missing required field "name"' });
  });
});

describe("Claude Code's model words", () => {
  const layers = (user: string, project?: string) => ({
    user: parseConfigLayer(user, "user"),
    project: project === undefined ? emptyLayer("project") : parseConfigLayer(project, "project"),
  });
  const agent = { name: "reviewer", claudeModel: "sonnet" as const };

  it("matches the first model of $models whose id contains the word", () => {
    expect(modelForWord("sonnet", ["anthropic/claude-opus-4", "anthropic/claude-sonnet-4-5", "x/sonnet-2"])).toBe(
      "anthropic/claude-sonnet-4-5",
    );
    expect(modelForWord("haiku", ["anthropic/claude-opus-4"])).toBeUndefined();
    // The provider's name does not count: only the id.
    expect(modelForWord("opus", ["opus-cloud/gpt-5"])).toBeUndefined();
    const resolved = resolveModelConfig(
      agent,
      layers('{"$models": ["openai/gpt-5", "anthropic/claude-sonnet-4-5"]}'),
      "fake/main",
    );
    expect(resolved.model).toEqual({ value: "anthropic/claude-sonnet-4-5", source: "frontmatter" });
  });

  it("without $models, uses a model the person's entries name", () => {
    expect(claudeWordModel("sonnet", layers('{"worker": "anthropic/claude-sonnet-4-5"}'))).toBe(
      "anthropic/claude-sonnet-4-5",
    );
  });

  it("inherits the main agent's model when nothing matches", () => {
    const resolved = resolveModelConfig(agent, layers('{"$models": ["openai/gpt-5"]}'), "fake/main");
    expect(resolved.model).toEqual({ value: "fake/main", source: "inherited" });
  });

  it("yields to a config entry for the agent, as a frontmatter model does", () => {
    const resolved = resolveModelConfig(
      agent,
      layers('{"$models": ["anthropic/claude-sonnet-4-5"], "reviewer": "openai/gpt-5"}'),
    );
    expect(resolved.model).toEqual({ value: "openai/gpt-5", source: "user" });
  });
});

describe("$claudeAgents", () => {
  it("is on by default, turned off by false in the user file, and ignored with a warning in a project file", () => {
    const none = { user: {}, project: {} };
    expect(readClaudeAgentsSetting(none)).toEqual({ enabled: true, warnings: [] });
    const off = readClaudeAgentsSetting({ user: { settings: { $claudeAgents: false } }, project: {} });
    expect(off).toEqual({ enabled: false, warnings: [] });
    const fromProject = readClaudeAgentsSetting({
      user: {},
      project: { settings: { $claudeAgents: false }, filePath: "/p/.pi/subagent-isolation.json" },
    });
    expect(fromProject.enabled).toBe(true);
    expect(fromProject.warnings).toEqual([
      'pi-subagent-dispatch: /p/.pi/subagent-isolation.json: "$claudeAgents" can only be set in your user-level subagent-isolation.json; ignored',
    ]);
    const bad = readClaudeAgentsSetting({ user: { settings: { $claudeAgents: "no" } }, project: {} });
    expect(bad.enabled).toBe(true);
    expect(bad.warnings[0]).toContain('"$claudeAgents" must be true or false; using true');
  });

  it("is decided at the session's start: a value written into the user file during it changes nothing", () => {
    const atStart = authoritySettingsOf(parseConfigLayer('{"$claudeAgents": false}', "user"));
    const now = withAuthorityAtStart(parseConfigLayer('{"$claudeAgents": true}', "user"), atStart);
    expect(readClaudeAgentsSetting({ user: now, project: {} }).enabled).toBe(false);
  });
});
