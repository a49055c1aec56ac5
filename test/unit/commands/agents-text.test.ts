/**
 * /subagent-agents' report from resolved agents: src/commands/agents-inventory.ts (tiers, shadowing, model and
 * thinking with their sources, the tool ceiling, the sandbox, first use, files left out) and
 * src/commands/agents-inventory.ts (the lines the person reads in print mode and the TUI).
 */
import { describe, expect, it } from "vitest";
import {
  buildAgentInventory,
  agentsJsonLine,
  agentsReportLines,
  NO_AGENTS,
  type InventoryInputs,
} from "../../../src/commands/agents-inventory.ts";
import type { AgentDefinition, AgentSource } from "../../../src/agents/parse.ts";
import type { ConfigLayer } from "../../../src/config/load.ts";

function agent(name: string, source: AgentSource, fields: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    name,
    description: `${name} of the ${source} tier`,
    body: "",
    source,
    filePath: `/${source}/${name}.md`,
    ...fields,
  };
}

function layer(name: ConfigLayer["name"], entries: ConfigLayer["entries"] = {}): ConfigLayer {
  return { name, entries, warnings: [] };
}

function inputs(overrides: Partial<InventoryInputs> = {}): InventoryInputs {
  return {
    tiers: {
      builtin: { agents: [], warnings: [] },
      user: { agents: [], warnings: [] },
      project: { agents: [], warnings: [] },
    },
    layers: { user: layer("user"), project: layer("project"), process: layer("process") },
    inheritedModel: "fake/fake-model",
    sandboxDefaults: {},
    session: { active: ["read", "bash", "edit", "write"], extensionTools: [] },
    ceiling: "session",
    projectGate: "run",
    approved: () => false,
    canAsk: false,
    ...overrides,
  };
}

describe("the /subagent-agents report", () => {
  it("lists a built-in, a user agent shadowing a built-in and a project agent, each with its sources, and the shadowed and bad files", () => {
    const report = agentsReportLines(
      buildAgentInventory(
        inputs({
          tiers: {
            builtin: {
              agents: [
                agent("explore", "builtin", { tools: ["read", "grep"] }),
                agent("reviewer", "builtin", { tools: ["read"] }),
              ],
              warnings: [],
            },
            user: {
              agents: [agent("reviewer", "user", { tools: ["read", "bash"], thinking: "high", sandbox: "read-only" })],
              warnings: [
                {
                  filePath: "/user/reviewer.md",
                  reason: 'unknown thinking level "huge"; that field is ignored, the agent still loads',
                },
              ],
            },
            project: {
              agents: [agent("worker", "project", { model: "fake/fake-reasoner", isolation: "worktree" })],
              warnings: [{ filePath: "/project/broken.md", reason: "no frontmatter", skipped: true }],
            },
          },
          layers: {
            user: layer("user", { worker: { thinking: "low" } }),
            project: layer("project"),
            process: layer("process"),
          },
        }),
      ),
    );
    expect(report).toEqual([
      "Subagents the main agent can dispatch: 3",
      "",
      "explore · built-in",
      "  explore of the builtin tier",
      "  model: fake/fake-model (inherited from the main agent) · thinking: pi's default",
      "  tools: read, grep",
      "  sandbox: off (default) · isolation: none · context: fresh",
      "  file: /builtin/explore.md",
      "",
      "reviewer · user, shadows built-in",
      "  reviewer of the user tier",
      "  model: fake/fake-model (inherited from the main agent) · thinking: high (frontmatter)",
      "  tools: read, bash",
      "  sandbox: read-only (frontmatter) · isolation: none · context: fresh",
      '  note: unknown thinking level "huge"; that field is ignored, the agent still loads',
      "  file: /user/reviewer.md",
      "",
      "worker · project",
      "  worker of the project tier",
      // The user file's entry sets only thinking: it governs thinking, and the model falls through to the frontmatter.
      "  model: fake/fake-reasoner (frontmatter) · thinking: low (user subagent-isolation.json)",
      "  tools: read, bash, edit, write (pi's defaults: the agent lists none)",
      "  sandbox: off (default) · isolation: worktree · context: fresh",
      "  file: /project/worker.md",
      "",
      "Shadowed (a higher tier defines the same name):",
      "- reviewer · built-in · /builtin/reviewer.md · shadowed by user /user/reviewer.md",
      "",
      "Left out:",
      "- /project/broken.md · project: no frontmatter",
    ]);
  });

  it("shows the tools after the ceiling: what a read-only session cannot give is named with the reason", () => {
    const [shown] = buildAgentInventory(
      inputs({
        tiers: {
          builtin: { agents: [agent("general-purpose", "builtin")], warnings: [] },
          user: { agents: [], warnings: [] },
          project: { agents: [], warnings: [] },
        },
        session: { active: ["read", "grep"], extensionTools: [] },
      }),
    ).agents;
    const lines = agentsReportLines({ agents: [shown!], shadowed: [], leftOut: [] });
    expect(lines).toContain("  tools: read, grep");
    expect(lines).toContain("  not granted: bash, edit, write (the main session has read-only tools)");
  });

  it("shows an agent's MCP servers and disallowed tools as a dispatch grants them (pi 1.x)", () => {
    const mcpSession = {
      active: ["read", "bash", "edit", "write", "codemode"],
      extensionTools: [],
      mcp: {
        supported: true,
        flags: { noMcp: false, noTools: false, exclude: ["mcp__gh__*"] },
        active: ["read", "bash", "edit", "write", "codemode"],
      },
    };
    const report = buildAgentInventory(
      inputs({
        tiers: {
          builtin: { agents: [agent("general-purpose", "builtin")], warnings: [] },
          user: { agents: [agent("docs", "user", { mcp: ["probe", "gh"], disallowedTools: ["bash"] })], warnings: [] },
          project: { agents: [], warnings: [] },
        },
        layers: {
          user: layer("user", { "general-purpose": { disallowedTools: ["write"] } }),
          project: layer("project"),
          process: layer("process"),
        },
        session: mcpSession,
      }),
    );
    const lines = agentsReportLines(report);
    const docs = lines.slice(lines.findIndex((line) => line.startsWith("docs ")));
    expect(docs).toContain("  tools: read, edit, write, codemode");
    expect(docs).toContain("  mcp: mcp__probe__* (only these servers start)");
    expect(docs).toContain("  disallowed: bash");
    expect(docs).toContain("  not granted: gh (excluded in the main session: --exclude-tools mcp__gh__*)");
    const general = lines.slice(lines.findIndex((line) => line.startsWith("general-purpose ")));
    expect(general).toContain("  mcp: none (no MCP server starts)");
    expect(general).toContain("  disallowed: write");
    // A session that uses no MCP and an agent that asks for none: no MCP line.
    const quiet = buildAgentInventory(
      inputs({
        tiers: {
          builtin: { agents: [agent("general-purpose", "builtin")], warnings: [] },
          user: { agents: [], warnings: [] },
          project: { agents: [], warnings: [] },
        },
        session: { ...mcpSession, active: ["read", "bash"], mcp: { ...mcpSession.mcp, active: ["read", "bash"] } },
      }),
    );
    expect(agentsReportLines(quiet).some((line) => line.startsWith("  mcp:"))).toBe(false);
  });

  it("names the files of a project whose agents are left out, with why: untrusted, or turned off by the person", () => {
    const untrusted = agentsReportLines(
      buildAgentInventory(
        inputs({ skippedProject: { dir: "/work/.pi/agents", files: ["worker.md", "a.md"], because: "untrusted" } }),
      ),
    );
    expect(untrusted).toEqual([
      NO_AGENTS,
      "",
      "Left out:",
      "- /work/.pi/agents/a.md · project: this project is not trusted in this session; to use them, trust the project: start pi with --approve, or run /trust",
      "- /work/.pi/agents/worker.md · project: this project is not trusted in this session; to use them, trust the project: start pi with --approve, or run /trust",
    ]);
    const never = agentsReportLines(
      buildAgentInventory(
        inputs({ skippedProject: { dir: "/work/.pi/agents", files: ["worker.md"], because: "policy" } }),
      ),
    );
    expect(never.at(-1)).toBe(
      '- /work/.pi/agents/worker.md · project: project agents are turned off ("$projectAgents": "never" in your subagent-isolation.json)',
    );
  });

  it("says how a project agent is gated on first use where pi has no decision", () => {
    const project = {
      builtin: { agents: [], warnings: [] },
      user: { agents: [], warnings: [] },
      project: { agents: [agent("worker", "project")], warnings: [] },
    };
    const trustLine = (overrides: Partial<InventoryInputs>) =>
      agentsReportLines(buildAgentInventory(inputs({ tiers: project, ...overrides }))).find((line) =>
        line.startsWith("  trust:"),
      );
    expect(trustLine({ projectGate: "run" })).toBeUndefined();
    expect(trustLine({ projectGate: "first-use", canAsk: true })).toBe(
      "  trust: asks you before its first run (pi has no trust decision for this project)",
    );
    expect(trustLine({ projectGate: "first-use", canAsk: true, approved: () => true })).toBe(
      "  trust: approved by you on first use",
    );
    expect(trustLine({ projectGate: "first-use" })).toBe(
      "  trust: refused here until you approve it once in the TUI (nobody can be asked outside it)",
    );
  });

  it("shows a project agent that takes a personal agent's name with that agent's sandbox and no more than its tools", () => {
    const [explore] = buildAgentInventory(
      inputs({
        tiers: {
          builtin: { agents: [agent("explore", "builtin", { tools: ["read"], sandbox: "read-only" })], warnings: [] },
          user: { agents: [], warnings: [] },
          project: { agents: [agent("explore", "project", { tools: ["read", "bash"] })], warnings: [] },
        },
      }),
    ).agents;
    expect(explore?.tier).toBe("project");
    expect(explore?.sandbox).toEqual({ level: "read-only", source: "frontmatter" });
    expect(explore?.tools).toEqual({
      tools: ["read"],
      piDefaults: false,
      notGranted: ["bash"],
      reason: 'not in the tools of the built-in agent "explore" it replaces',
      disallowed: [],
    });
  });

  it("takes the sandbox and model a dispatch would: a project entry only tightens, this process's override wins", () => {
    const [worker] = buildAgentInventory(
      inputs({
        tiers: {
          builtin: { agents: [agent("worker", "builtin")], warnings: [] },
          user: { agents: [], warnings: [] },
          project: { agents: [], warnings: [] },
        },
        layers: {
          user: layer("user", { worker: { sandbox: "workspace-write" } }),
          project: layer("project", { worker: { sandbox: "read-only" } }),
          process: layer("process", { worker: { model: "fake/other" } }),
        },
      }),
    ).agents;
    expect(worker!.sandbox).toEqual({ level: "read-only", source: "project" });
    expect(agentsReportLines({ agents: [worker!], shadowed: [], leftOut: [] })).toContain(
      "  model: fake/other (this process (/subagent-config)) · thinking: pi's default",
    );
  });

  it("keeps a file's control sequences out of the terminal, and writes one JSON line in JSON mode", () => {
    const inventory = buildAgentInventory(
      inputs({
        tiers: {
          builtin: { agents: [], warnings: [] },
          user: { agents: [agent("x", "user", { description: "evil\u001b[2Jclear" })], warnings: [] },
          project: { agents: [], warnings: [] },
        },
      }),
    );
    expect(agentsReportLines(inventory).join("\n")).not.toContain("\u001b");
    const line = agentsJsonLine(inventory);
    expect(line.endsWith("\n")).toBe(true);
    expect(JSON.parse(line)).toMatchObject({
      type: "subagent_agents",
      agents: [{ name: "x", tier: "user" }],
      shadowed: [],
      leftOut: [],
    });
  });
});

describe("Claude Code's agent files in the /subagent-agents report", () => {
  const claude = (name: string, source: AgentSource, fields: Partial<AgentDefinition> = {}) =>
    agent(name, source, { dialect: "claude", filePath: `/claude-${source}/${name}.md`, ...fields });

  it("names their tiers claude (user) and claude (project), below pi's own, and keeps a name's protection", () => {
    const report = agentsReportLines(
      buildAgentInventory(
        inputs({
          tiers: {
            builtin: { agents: [agent("explore", "builtin", { tools: ["read", "grep"] })], warnings: [] },
            user: { agents: [agent("helper", "user")], warnings: [] },
            project: { agents: [agent("explore", "project", { tools: ["read", "bash"] })], warnings: [] },
          },
          claudeTiers: {
            user: { agents: [claude("helper", "user"), claude("critic", "user", { tools: ["read"] })], warnings: [] },
            project: {
              agents: [claude("explore", "project", { tools: ["bash"] }), claude("reviewer", "project")],
              warnings: [
                {
                  filePath: "/claude-project/reviewer.md",
                  reason: "not mapped from Claude Code: color; the agent loads without it",
                },
              ],
            },
          },
          skippedClaudeProject: undefined,
        }),
      ),
    );
    expect(report).toContain("critic · claude (user)");
    expect(report).toContain("helper · user, shadows claude (user)");
    expect(report).toContain("reviewer · claude (project)");
    expect(report).toContain("  note: not mapped from Claude Code: color; the agent loads without it");
    // pi's project file wins over Claude's, and is still bounded by the built-in explore it replaces.
    expect(report).toContain("explore · project, shadows built-in and claude (project)");
    expect(report).toContain('  not granted: bash (not in the tools of the built-in agent "explore" it replaces)');
    expect(report).toContain(
      "- explore · claude (project) · /claude-project/explore.md · shadowed by project /project/explore.md",
    );
  });

  it("notes a model word that matched none of the person's models, and lists a skipped .claude/agents", () => {
    const inventory = buildAgentInventory(
      inputs({
        claudeTiers: { user: { agents: [claude("critic", "user", { claudeModel: "opus" })], warnings: [] } },
        projectGate: "run",
        skippedClaudeProject: { dir: "/repo/.claude/agents", files: ["x.md"], because: "untrusted" },
      }),
    );
    const report = agentsReportLines(inventory);
    expect(report).toContain("  model: fake/fake-model (inherited from the main agent) · thinking: pi's default");
    expect(report).toContain(
      "  note: Claude Code's model \"opus\" matched no model of your $models list or subagent-isolation.json entries; the main agent's model is used",
    );
    expect(report.find((line) => line.startsWith("- /repo/.claude/agents/x.md · claude (project): "))).toContain(
      "this project is not trusted",
    );
    expect(JSON.parse(agentsJsonLine(inventory)).agents[0]).toMatchObject({
      name: "critic",
      tier: "user",
      dialect: "claude",
    });
  });
});
