import { symlinkSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverAgents, findProjectAgentsDir, mergeAgentTiers, readAgentsDir } from "../../../src/agents/discover.ts";
import type { AgentDefinition, AgentSource } from "../../../src/agents/parse.ts";
import { agentFile, createTempTree, type TempTree } from "./temp-tree.ts";

let tree: TempTree;
beforeEach(() => {
  tree = createTempTree();
});
afterEach(() => tree.remove());

/** Layout: <root>/builtin, <root>/home/.pi/agent (agent dir), <root>/home/repo/.pi/agents, cwd <root>/home/repo/src. */
function layout() {
  const home = tree.mkdir("home");
  const agentDir = tree.mkdir("home/.pi/agent");
  const builtinDir = tree.mkdir("builtin");
  const cwd = tree.mkdir("home/repo/src/deep");
  return {
    home,
    agentDir,
    builtinDir,
    cwd,
    builtin: (file: string, text: string) => tree.write(`builtin/${file}`, text),
    user: (file: string, text: string) => tree.write(`home/.pi/agent/agents/${file}`, text),
    project: (file: string, text: string) => tree.write(`home/repo/.pi/agents/${file}`, text),
  };
}

function summary(agents: AgentDefinition[]): string[] {
  return agents.map((a) => `${a.name}:${a.source}:${a.description}`);
}

describe("discoverAgents: tiers and shadowing", () => {
  it("reads builtin, user and project agents, a later tier replacing an earlier one of the same name", () => {
    const l = layout();
    l.builtin("general.md", agentFile({ name: "general", description: "builtin general" }));
    l.builtin("shared.md", agentFile({ name: "shared", description: "builtin shared" }));
    l.user("shared.md", agentFile({ name: "shared", description: "user shared" }));
    l.user("writer.md", agentFile({ name: "writer", description: "user writer" }));
    l.user("coder.md", agentFile({ name: "coder", description: "user coder" }));
    l.project("coder.md", agentFile({ name: "coder", description: "project coder" }));
    const result = discoverAgents({ cwd: l.cwd, agentDir: l.agentDir, builtinDir: l.builtinDir, home: l.home });
    expect(summary(result.agents)).toEqual([
      "coder:project:project coder",
      "general:builtin:builtin general",
      "shared:user:user shared",
      "writer:user:user writer",
    ]);
    expect(result.warnings).toEqual([]);
    expect(result.projectAgentsDir).toBe(tree.path("home/repo/.pi/agents"));
    expect(result.userAgentsDir).toBe(tree.path("home/.pi/agent/agents"));
    expect(result.builtinAgentsDir).toBe(l.builtinDir);
  });

  it("a project agent also shadows a builtin one", () => {
    const l = layout();
    l.builtin("explore.md", agentFile({ name: "explore", description: "builtin" }));
    l.project("explore.md", agentFile({ name: "explore", description: "mine" }));
    const result = discoverAgents({ cwd: l.cwd, agentDir: l.agentDir, builtinDir: l.builtinDir, home: l.home });
    expect(summary(result.agents)).toEqual(["explore:project:mine"]);
  });

  it("matches agents by their name field, not by their file name", () => {
    const l = layout();
    l.user("zeta.md", agentFile({ name: "alpha", description: "user" }));
    l.project("other.md", agentFile({ name: "alpha", description: "project" }));
    const result = discoverAgents({ cwd: l.cwd, agentDir: l.agentDir, builtinDir: l.builtinDir, home: l.home });
    expect(summary(result.agents)).toEqual(["alpha:project:project"]);
  });

  it("agentScope narrows the user and project tiers; builtins stay unless shadowed", () => {
    const l = layout();
    l.builtin("base.md", agentFile({ name: "base", description: "builtin base" }));
    l.builtin("both.md", agentFile({ name: "both", description: "builtin both" }));
    l.user("u.md", agentFile({ name: "u", description: "user u" }));
    l.user("both.md", agentFile({ name: "both", description: "user both" }));
    l.project("p.md", agentFile({ name: "p", description: "project p" }));
    l.project("both.md", agentFile({ name: "both", description: "project both" }));
    const run = (scope: "user" | "project" | "both" | undefined) =>
      summary(
        discoverAgents({ cwd: l.cwd, agentDir: l.agentDir, builtinDir: l.builtinDir, home: l.home, scope }).agents,
      );
    expect(run("user")).toEqual(["base:builtin:builtin base", "both:user:user both", "u:user:user u"]);
    expect(run("project")).toEqual(["base:builtin:builtin base", "both:project:project both", "p:project:project p"]);
    expect(run("both")).toEqual([
      "base:builtin:builtin base",
      "both:project:project both",
      "p:project:project p",
      "u:user:user u",
    ]);
    expect(run(undefined)).toEqual(run("both"));
  });

  it("only reports problems of the tiers it read", () => {
    const l = layout();
    l.user("broken.md", "no frontmatter");
    l.project("broken.md", "no frontmatter");
    const userOnly = discoverAgents({
      cwd: l.cwd,
      agentDir: l.agentDir,
      builtinDir: l.builtinDir,
      home: l.home,
      scope: "user",
    });
    expect(userOnly.warnings.map((w) => w.filePath)).toEqual([tree.path("home/.pi/agent/agents/broken.md")]);
  });

  it("works with no folders at all", () => {
    const l = layout();
    const result = discoverAgents({
      cwd: l.cwd,
      agentDir: tree.path("nowhere"),
      builtinDir: tree.path("none"),
      home: l.home,
    });
    expect(result).toMatchObject({ agents: [], warnings: [] });
    expect(result.projectAgentsDir).toBeUndefined();
  });

  it("reads a folder that is both the user and the project tier once, as user", () => {
    const home = tree.mkdir("home");
    const cwd = tree.mkdir("work/repo");
    tree.write("work/repo/.pi/agents/a.md", agentFile({ name: "a", description: "d" }));
    const result = discoverAgents({ cwd, agentDir: tree.path("work/repo/.pi"), builtinDir: tree.path("none"), home });
    expect(summary(result.agents)).toEqual(["a:user:d"]);
    expect(result.projectAgentsDir).toBeUndefined();
  });
});

describe("the project agents folder", () => {
  it("is the nearest .pi/agents walking up from cwd", () => {
    const home = tree.mkdir("home");
    tree.mkdir("home/outer/.pi/agents");
    tree.mkdir("home/outer/inner/.pi/agents");
    tree.mkdir("home/outer/inner/pkg/.pi"); // a .pi without agents does not count
    const cwd = tree.mkdir("home/outer/inner/pkg/src");
    expect(findProjectAgentsDir(cwd, home)).toBe(tree.path("home/outer/inner/.pi/agents"));
    expect(findProjectAgentsDir(tree.mkdir("home/outer/x"), home)).toBe(tree.path("home/outer/.pi/agents"));
  });

  it("is never looked for in the home directory (its .pi is the user level) or above it", () => {
    const home = tree.mkdir("home");
    tree.mkdir("home/.pi/agents");
    tree.mkdir(".pi/agents"); // above home
    expect(findProjectAgentsDir(tree.mkdir("home/repo"), home)).toBeUndefined();
    expect(findProjectAgentsDir(home, home)).toBeUndefined();
  });

  it("is found above cwd when cwd is outside the home directory", () => {
    tree.mkdir("elsewhere/.pi/agents");
    const cwd = tree.mkdir("elsewhere/a/b");
    expect(findProjectAgentsDir(cwd, tree.path("home"))).toBe(tree.path("elsewhere/.pi/agents"));
  });
});

describe("readAgentsDir: bad files never stop the others", () => {
  it("skips each malformed file with one warning naming it, and loads every other agent", () => {
    const dir = tree.mkdir("agents");
    tree.write("agents/a-good.md", agentFile({ name: "good", description: "fine" }));
    tree.write("agents/b-broken-yaml.md", "---\nname: [x\ndescription: y\n---\n");
    tree.write("agents/c-no-frontmatter.md", "Just a prompt.\n");
    tree.write("agents/d-no-name.md", agentFile({ description: "nameless" }));
    tree.write("agents/e-no-description.md", agentFile({ name: "silent" }));
    tree.write("agents/f-escape.md", agentFile({ name: '"../../etc"', description: "x" }));
    tree.write("agents/g-proto.md", agentFile({ name: "__proto__", description: "x" }));
    tree.write("agents/h-dup.md", agentFile({ name: "good", description: "second" }));
    tree.write("agents/i-also-good.md", agentFile({ name: "other", description: "fine too" }));
    tree.write("agents/notes.txt", "not an agent");
    tree.write("agents/README", "not an agent");
    tree.mkdir("agents/folder.md");
    tree.write("agents/sub/nested.md", agentFile({ name: "nested", description: "subfolders are not read" }));

    const { agents, warnings } = readAgentsDir(dir, "project");
    expect(agents.map((a) => `${a.name}:${a.description}:${a.source}`)).toEqual([
      "good:fine:project",
      "other:fine too:project",
    ]);
    expect(warnings.map((w) => [w.filePath.slice(dir.length + 1), w.skipped])).toEqual([
      ["b-broken-yaml.md", true],
      ["c-no-frontmatter.md", true],
      ["d-no-name.md", true],
      ["e-no-description.md", true],
      ["f-escape.md", true],
      ["g-proto.md", true],
      ["h-dup.md", true],
    ]);
    expect(warnings[6]?.reason).toBe('duplicate name "good" (already defined by a-good.md in the same folder)');
  });

  it("gives one warning for a file with several invalid optional fields, and loads the agent", () => {
    const dir = tree.mkdir("agents");
    tree.write(
      "agents/a.md",
      agentFile({ name: "a", description: "d", thinking: "ultra", model: "7" + "\n" + "tools: {x: 1}" }),
    );
    const { agents, warnings } = readAgentsDir(dir, "user");
    expect(agents.map((a) => a.name)).toEqual(["a"]);
    expect(warnings).toEqual([
      {
        filePath: tree.path("agents/a.md"),
        reason:
          '"tools" must be a list of names or a comma-separated string; "model" must be a non-empty string; "thinking" must be one of off, minimal, low, medium, high, xhigh, max (got "ultra"); those fields are ignored, the agent still loads',
      },
    ]);
  });

  it("is deterministic: files in name order, whatever order they were written in", () => {
    const dir = tree.mkdir("agents");
    for (const name of ["m", "b", "z", "a", "B"])
      tree.write(`agents/${name}.md`, agentFile({ name: `n-${name}`, description: "x" }));
    tree.write("agents/dup-first.md", agentFile({ name: "dup", description: "first" }));
    tree.write("agents/dup-second.md", agentFile({ name: "dup", description: "second" }));
    const first = readAgentsDir(dir, "user");
    expect(first.agents.map((a) => a.name)).toEqual(["n-B", "n-a", "n-b", "dup", "n-m", "n-z"]);
    expect(first.agents.find((a) => a.name === "dup")?.description).toBe("first");
    expect(readAgentsDir(dir, "user")).toEqual(first);
  });

  it("reports a file it cannot read (a dangling link), and goes on", () => {
    const dir = tree.mkdir("agents");
    const dangling = tree.path("agents/gone.md");
    symlinkSync(tree.path("nowhere.md"), dangling);
    tree.write("agents/open.md", agentFile({ name: "open", description: "x" }));
    const { agents, warnings } = readAgentsDir(dir, "user");
    expect(agents.map((a) => a.name)).toEqual(["open"]);
    expect(warnings).toEqual([{ filePath: dangling, reason: "the file cannot be read (ENOENT)", skipped: true }]);
  });

  it("follows a link to an agent file", () => {
    const dir = tree.mkdir("agents");
    const target = tree.write("elsewhere/real.md", agentFile({ name: "linked", description: "x" }));
    symlinkSync(target, tree.path("agents/linked.md"));
    expect(readAgentsDir(dir, "user").agents.map((a) => a.name)).toEqual(["linked"]);
  });

  it("returns nothing for a missing folder", () => {
    expect(readAgentsDir(tree.path("missing"), "user")).toEqual({ agents: [], warnings: [] });
  });
});

describe("mergeAgentTiers", () => {
  const agent = (name: string, source: AgentSource): AgentDefinition => ({
    name,
    description: source,
    body: "",
    source,
    filePath: `/${source}/${name}.md`,
  });

  it("sorts the result by name and lets project beat user beat builtin", () => {
    const merged = mergeAgentTiers({
      builtin: [agent("z", "builtin"), agent("a", "builtin")],
      user: [agent("a", "user"), agent("m", "user")],
      project: [agent("m", "project")],
    });
    expect(merged.map((a) => `${a.name}:${a.source}`)).toEqual(["a:user", "m:project", "z:builtin"]);
  });

  it("a project agent that takes a name carries the agent it replaces (the user's over the built-in), whatever the scope", () => {
    const mine: AgentDefinition = { ...agent("rev", "user"), sandbox: "read-only", tools: ["read"] };
    const tiers = {
      builtin: [agent("rev", "builtin"), agent("explore", "builtin")],
      user: [mine],
      project: [agent("rev", "project"), agent("explore", "project"), agent("own", "project")],
    };
    for (const scope of ["both", "project"] as const) {
      const merged = mergeAgentTiers(tiers, scope);
      expect(merged.find((a) => a.name === "rev")?.shadows).toEqual({
        name: "rev",
        source: "user",
        filePath: "/user/rev.md",
        tools: ["read"],
        sandbox: "read-only",
      });
      expect(merged.find((a) => a.name === "explore")?.shadows).toEqual({
        name: "explore",
        source: "builtin",
        filePath: "/builtin/explore.md",
      });
      expect(merged.find((a) => a.name === "own")?.shadows).toBeUndefined();
    }
    // The cached parse is not changed.
    expect(tiers.project[0]).not.toHaveProperty("shadows");
  });
});

describe("discoverAgents: Claude Code's agent files", () => {
  /** The layout above, plus `<home>/.claude/agents` and `<home>/repo/.claude/agents`. */
  function claudeLayout() {
    const l = layout();
    return {
      ...l,
      claudeUser: (file: string, text: string) => tree.write(`home/.claude/agents/${file}`, text),
      claudeProject: (file: string, text: string) => tree.write(`home/repo/.claude/agents/${file}`, text),
      discover: (
        extra: { projectAgents?: boolean; claudeAgents?: boolean; scope?: "user" | "project" | "both" } = {},
      ) => discoverAgents({ cwd: l.cwd, agentDir: l.agentDir, builtinDir: l.builtinDir, home: l.home, ...extra }),
    };
  }
  const tiersOf = (agents: AgentDefinition[]) =>
    agents.map((a) => `${a.name}:${a.dialect === "claude" ? "claude " : ""}${a.source}:${a.description}`);

  it("orders the tiers builtin < claude user < user < claude project < project; a pi file wins in its tier", () => {
    const l = claudeLayout();
    l.builtin("a.md", agentFile({ name: "a", description: "builtin a" }));
    l.claudeUser("a.md", agentFile({ name: "a", description: "claude user a" }));
    l.claudeUser("b.md", agentFile({ name: "b", description: "claude user b" }));
    l.user("b.md", agentFile({ name: "b", description: "user b" }));
    l.claudeUser("c.md", agentFile({ name: "c", description: "claude user c" }));
    l.claudeProject("c.md", agentFile({ name: "c", description: "claude project c" }));
    l.claudeProject("d.md", agentFile({ name: "d", description: "claude project d" }));
    l.project("d.md", agentFile({ name: "d", description: "project d" }));
    l.user("e.md", agentFile({ name: "e", description: "user e" }));
    l.claudeProject("e.md", agentFile({ name: "e", description: "claude project e" }));
    const result = l.discover();
    expect(tiersOf(result.agents)).toEqual([
      "a:claude user:claude user a",
      "b:user:user b",
      "c:claude project:claude project c",
      "d:project:project d",
      "e:claude project:claude project e",
    ]);
    expect(result.claudeUserAgentsDir).toBe(tree.path("home/.claude/agents"));
    expect(result.claudeProjectAgentsDir).toBe(tree.path("home/repo/.claude/agents"));
  });

  it("gives a Claude project agent named like a built-in or user agent that agent's protection", () => {
    const l = claudeLayout();
    l.builtin(
      "explore.md",
      agentFile({ name: "explore", description: "builtin", tools: "read, grep", sandbox: "read-only" }),
    );
    l.claudeUser("helper.md", agentFile({ name: "helper", description: "claude user", tools: "Read" }));
    l.claudeProject("explore.md", agentFile({ name: "explore", description: "planted", tools: "Bash, Read" }));
    l.claudeProject("helper.md", agentFile({ name: "helper", description: "planted", tools: "Write" }));
    const byName = new Map(l.discover().agents.map((a) => [a.name, a]));
    expect(byName.get("explore")?.shadows).toMatchObject({
      source: "builtin",
      tools: ["read", "grep"],
      sandbox: "read-only",
    });
    expect(byName.get("helper")?.shadows).toMatchObject({ source: "user", tools: ["read"] });
  });

  it("reads no project .claude/agents where the project's agents must not count, and names it skipped", () => {
    const l = claudeLayout();
    l.claudeUser("mine.md", agentFile({ name: "mine", description: "claude user" }));
    l.claudeProject("theirs.md", agentFile({ name: "theirs", description: "claude project" }));
    const result = l.discover({ projectAgents: false });
    expect(result.agents.map((a) => a.name)).toEqual(["mine"]);
    expect(result.claudeProjectAgentsSkipped).toBe(tree.path("home/repo/.claude/agents"));
    expect(result.claudeProjectAgentsDir).toBeUndefined();
  });

  it("reads neither Claude folder with $claudeAgents false", () => {
    const l = claudeLayout();
    l.claudeUser("mine.md", agentFile({ name: "mine", description: "claude user" }));
    l.claudeProject("theirs.md", agentFile({ name: "theirs", description: "claude project" }));
    l.user("pi.md", agentFile({ name: "pi", description: "user" }));
    const result = l.discover({ claudeAgents: false });
    expect(result.agents.map((a) => a.name)).toEqual(["pi"]);
    expect(result.claudeUserAgentsDir).toBeUndefined();
    expect(result.claudeProjectAgentsDir).toBeUndefined();
  });

  it("warns once per file about what was not mapped; the agent still loads", () => {
    const l = claudeLayout();
    const file = l.claudeProject(
      "r.md",
      agentFile({ name: "r", description: "d", tools: "Read, WebFetch", color: "red" }),
    );
    const result = l.discover();
    expect(result.agents.map((a) => a.name)).toEqual(["r"]);
    expect(result.warnings).toEqual([
      { filePath: file, reason: "not mapped from Claude Code: tools WebFetch; the agent loads without it" },
    ]);
  });
});
