import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseAgentFile, agentNameProblem, type ParsedAgentFile } from "../../../src/agents/parse.ts";

const FILE = "/agents/x.md";

function parse(text: string): ParsedAgentFile {
  return parseAgentFile(text, FILE, "user");
}

function reasonOf(text: string): string {
  const parsed = parse(text);
  if (parsed.ok) throw new Error(`expected a skip, got agent ${parsed.agent.name}`);
  return parsed.reason;
}

function agentOf(text: string) {
  const parsed = parse(text);
  if (!parsed.ok) throw new Error(`expected an agent, got: ${parsed.reason}`);
  return parsed;
}

describe("parseAgentFile: a valid file", () => {
  it("reads every field and keeps the body as the system prompt", () => {
    const text = [
      "---",
      "name: coder",
      "description: Writes clean TypeScript.",
      "tools: read, edit, write, bash",
      "model: provider/model-1",
      "thinking: high",
      "skills: /skills/a,/skills/b",
      "---",
      "",
      "You are a senior engineer.",
      "",
      "Prefer small changes.",
      "",
    ].join("\n");
    const parsed = agentOf(text);
    expect(parsed.ignored).toEqual([]);
    expect(parsed.agent).toEqual({
      name: "coder",
      description: "Writes clean TypeScript.",
      tools: ["read", "edit", "write", "bash"],
      model: "provider/model-1",
      thinking: "high",
      skills: ["/skills/a", "/skills/b"],
      body: "You are a senior engineer.\n\nPrefer small changes.",
      source: "user",
      filePath: FILE,
      contentSha256: createHash("sha256").update(text).digest("hex"),
    });
  });

  it("leaves optional fields out when they are not written", () => {
    const text = "---\nname: a\ndescription: b\n---\n";
    const { agent } = agentOf(text);
    expect(agent).toEqual({
      name: "a",
      description: "b",
      body: "",
      source: "user",
      filePath: FILE,
      contentSha256: createHash("sha256").update(text).digest("hex"),
    });
    expect("tools" in agent || "skills" in agent || "model" in agent || "thinking" in agent).toBe(false);
  });

  it("accepts a BOM and CRLF line endings", () => {
    const { agent } = agentOf(
      "\uFEFF---\r\nname: crlf\r\ndescription: Windows file\r\ntools: read, ls\r\n---\r\nLine 1\r\nLine 2\r\n",
    );
    expect(agent).toMatchObject({
      name: "crlf",
      description: "Windows file",
      tools: ["read", "ls"],
      body: "Line 1\nLine 2",
    });
  });

  it("reads tools and skills as a YAML list or as a comma-separated string, the same way", () => {
    const list = agentOf("---\nname: a\ndescription: b\ntools:\n  - read\n  - grep\nskills: [/s/one, /s/two]\n---\n");
    const comma = agentOf("---\nname: a\ndescription: b\ntools: read,grep\nskills: ' /s/one , /s/two '\n---\n");
    expect(list.agent.tools).toEqual(["read", "grep"]);
    expect(comma.agent.tools).toEqual(["read", "grep"]);
    expect(list.agent.skills).toEqual(["/s/one", "/s/two"]);
    expect(comma.agent.skills).toEqual(["/s/one", "/s/two"]);
  });

  it("reads mcp (server names or mcp__ patterns) and disallowedTools as lists, naming a bad mcp entry", () => {
    const parsed = agentOf(
      "---\nname: a\ndescription: b\nmcp: [github, 'mcp__jira__get_*', 'not a server']\ndisallowedTools: bash, mcp__*\n---\n",
    );
    expect(parsed.agent.mcp).toEqual(["github", "mcp__jira__get_*"]);
    expect(parsed.agent.disallowedTools).toEqual(["bash", "mcp__*"]);
    expect(parsed.ignored).toEqual([
      '"mcp" entry "not a server": must be a server name (letters, digits, _ and -) or a pattern starting with mcp__',
    ]);
    expect(agentOf("---\nname: a\ndescription: b\n---\n").agent.mcp).toBeUndefined();
  });

  it("drops blank and repeated list items", () => {
    expect(agentOf("---\nname: a\ndescription: b\ntools: read, , grep, read,\n---\n").agent.tools).toEqual([
      "read",
      "grep",
    ]);
  });

  it("treats an empty tools value as not set, but an empty skills key as 'no skills'", () => {
    for (const empty of ["", "''", "[]"]) {
      const { agent } = agentOf(`---\nname: a\ndescription: b\ntools: ${empty}\nskills: ${empty}\n---\n`);
      expect(agent.tools).toBeUndefined();
      expect(agent.skills).toEqual([]);
    }
  });

  it("accepts every thinking level, max included", () => {
    for (const level of ["off", "minimal", "low", "medium", "high", "xhigh", "max"]) {
      expect(agentOf(`---\nname: a\ndescription: b\nthinking: ${level}\n---\n`).agent.thinking).toBe(level);
    }
  });

  it("ignores unknown keys", () => {
    const parsed = agentOf("---\nname: a\ndescription: b\ncolor: blue\nnested: {x: 1}\n---\n");
    expect(parsed.ignored).toEqual([]);
    expect(parsed.agent).not.toHaveProperty("color");
  });

  it("keeps a multi-line description as written (the roster flattens it)", () => {
    expect(agentOf("---\nname: a\ndescription: |\n  First line.\n  Second line.\n---\n").agent.description).toBe(
      "First line.\nSecond line.\n",
    );
  });

  it("trims the model id", () => {
    expect(agentOf("---\nname: a\ndescription: b\nmodel: '  p/m  '\n---\n").agent.model).toBe("p/m");
  });
});

describe("parseAgentFile: invalid optional fields are dropped and reported, the agent still loads", () => {
  it("an unknown thinking level", () => {
    const parsed = agentOf("---\nname: a\ndescription: b\nthinking: ultra\n---\n");
    expect(parsed.agent.thinking).toBeUndefined();
    expect(parsed.ignored).toEqual([
      '"thinking" must be one of off, minimal, low, medium, high, xhigh, max (got "ultra")',
    ]);
  });

  it("a thinking level in the wrong case", () => {
    expect(agentOf("---\nname: a\ndescription: b\nthinking: High\n---\n").ignored).toHaveLength(1);
  });

  it("a model that is not a string, tools and skills that are not lists of names", () => {
    const parsed = agentOf("---\nname: a\ndescription: b\nmodel: 42\ntools: {read: true}\nskills: [1, 2]\n---\n");
    expect(parsed.agent).not.toHaveProperty("model");
    expect(parsed.agent).not.toHaveProperty("tools");
    expect(parsed.agent).not.toHaveProperty("skills");
    expect(parsed.ignored).toEqual([
      '"tools" must be a list of names or a comma-separated string',
      '"skills" must be a list of names or a comma-separated string',
      '"model" must be a non-empty string',
    ]);
  });
});

describe("parseAgentFile: files that are skipped, with the reason", () => {
  it("no frontmatter", () => {
    expect(reasonOf("You are an agent without metadata.\n")).toBe(
      "no frontmatter (the file must start with a --- line)",
    );
  });

  it("a frontmatter that is never closed", () => {
    expect(reasonOf("---\nname: a\ndescription: b\n")).toBe("the frontmatter is never closed (no second --- line)");
  });

  it("broken YAML, with the parser's first line", () => {
    const reason = reasonOf("---\nname: a\ndescription: [unclosed\n---\n");
    expect(reason).toMatch(/^invalid YAML in the frontmatter: \S/);
    expect(reason).not.toContain("\n");
  });

  it("a duplicate key in the YAML", () => {
    expect(reasonOf("---\nname: a\nname: b\ndescription: c\n---\n")).toMatch(/^invalid YAML in the frontmatter: /);
  });

  it("a frontmatter that is a list or a scalar, not a mapping", () => {
    expect(reasonOf("---\n- name\n- description\n---\n")).toBe(
      "the frontmatter is not a YAML mapping of keys to values",
    );
    expect(reasonOf("---\njust text\n---\n")).toBe("the frontmatter is not a YAML mapping of keys to values");
  });

  it("an empty frontmatter", () => {
    expect(reasonOf("---\n---\nbody\n")).toBe('missing required field "name"');
  });

  it("a missing or empty name", () => {
    expect(reasonOf("---\ndescription: b\n---\n")).toBe('missing required field "name"');
    expect(reasonOf("---\nname:\ndescription: b\n---\n")).toBe('missing required field "name"');
    expect(reasonOf("---\nname: '  '\ndescription: b\n---\n")).toBe('"name" must be a non-empty string');
  });

  it("a name that is not a string", () => {
    expect(reasonOf("---\nname: 2024\ndescription: b\n---\n")).toBe('"name" must be a non-empty string');
    expect(reasonOf("---\nname: [a]\ndescription: b\n---\n")).toBe('"name" must be a non-empty string');
  });

  it("a missing, empty or non-string description", () => {
    expect(reasonOf("---\nname: a\n---\n")).toBe('missing required field "description"');
    expect(reasonOf("---\nname: a\ndescription: ''\n---\n")).toBe('"description" must be a non-empty string');
    expect(reasonOf("---\nname: a\ndescription: 12\n---\n")).toBe('"description" must be a non-empty string');
  });

  it.each([
    ["../escape", 'invalid name "../escape": the name contains a path separator (/ or \\)'],
    ["a/b", 'invalid name "a/b": the name contains a path separator (/ or \\)'],
    ["a\\\\b", 'invalid name "a\\\\b": the name contains a path separator (/ or \\)'],
    ["..", 'invalid name "..": the name contains ".."'],
    ["a..b", 'invalid name "a..b": the name contains ".."'],
    ["__proto__", 'invalid name "__proto__": the name "__proto__" is reserved'],
    ["constructor", 'invalid name "constructor": the name "constructor" is reserved'],
    ["prototype", 'invalid name "prototype": the name "prototype" is reserved'],
    [
      "$models",
      'invalid name "$models": the name starts with "$", which subagent-isolation.json reserves for its own keys',
    ],
    ["two words", 'invalid name "two words": the name contains whitespace'],
  ])("the unsafe name %s", (name, reason) => {
    expect(reasonOf(`---\nname: "${name}"\ndescription: b\n---\n`)).toBe(reason);
  });

  it("a name with a control character, escaped in the reason", () => {
    expect(reasonOf('---\nname: "bad\\u001b[31m"\ndescription: b\n---\n')).toBe(
      'invalid name "bad\\u001b[31m": the name contains a control character',
    );
    expect(reasonOf('---\nname: "tab\\there"\ndescription: b\n---\n')).toContain("control character");
  });
});

describe("agentNameProblem", () => {
  it("accepts ordinary names", () => {
    for (const name of ["coder", "general-purpose", "doc_writer", "v2.reviewer", "Écrivain", "代码"]) {
      expect(agentNameProblem(name)).toBeUndefined();
    }
  });

  it("refuses the empty name and a lone dot", () => {
    expect(agentNameProblem("")).toBe("the name is empty");
    expect(agentNameProblem(".")).toBe('the name is "."');
  });
});

describe("parseAgentFile: context", () => {
  it("reads fresh or fork, and drops anything else with a note", () => {
    const file = (value: string) => `---\nname: a\ndescription: d\ncontext: ${value}\n---\nbody\n`;
    const fork = parseAgentFile(file("fork"), "/a.md", "user");
    expect(fork.ok && fork.agent.context).toBe("fork");
    const fresh = parseAgentFile(file("fresh"), "/a.md", "user");
    expect(fresh.ok && fresh.agent.context).toBe("fresh");
    const bad = parseAgentFile(file("forked"), "/a.md", "user");
    expect(bad.ok && bad.agent.context).toBeUndefined();
    expect(bad.ok && bad.ignored).toEqual(['"context" must be fresh or fork (got "forked")']);
  });
});

describe("parseAgentFile: isolation", () => {
  it("reads isolation: worktree or none", () => {
    expect(agentOf("---\nname: a\ndescription: b\nisolation: worktree\n---\n").agent.isolation).toBe("worktree");
    expect(agentOf("---\nname: a\ndescription: b\nisolation: none\n---\n").agent.isolation).toBe("none");
    expect(agentOf("---\nname: a\ndescription: b\n---\n").agent.isolation).toBeUndefined();
  });

  it("drops an unknown value with a note", () => {
    const parsed = agentOf("---\nname: a\ndescription: b\nisolation: docker\n---\n");
    expect(parsed.agent.isolation).toBeUndefined();
    expect(parsed.ignored).toEqual(['"isolation" must be one of none, worktree (got "docker")']);
  });
});

describe("parseAgentFile: sandbox", () => {
  it("reads sandbox: read-only, workspace-write or off", () => {
    for (const level of ["read-only", "workspace-write", "off"]) {
      expect(agentOf(`---\nname: a\ndescription: b\nsandbox: ${level}\n---\n`).agent.sandbox).toBe(level);
    }
    expect(agentOf("---\nname: a\ndescription: b\n---\n").agent.sandbox).toBeUndefined();
  });

  it("reads an unknown value (a mistyped level) as read-only, with a note: fail closed, never no sandbox", () => {
    for (const typo of ["strict", "readonly", "read_only"]) {
      const parsed = agentOf(`---\nname: a\ndescription: b\nsandbox: ${typo}\n---\n`);
      expect(parsed.agent.sandbox).toBe("read-only");
      expect(parsed.ignored).toEqual([]);
      expect(parsed.sandboxProblem).toBe(`"sandbox" must be one of off, workspace-write, read-only (got "${typo}")`);
    }
  });
});
