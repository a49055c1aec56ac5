/** The menus and notices of /subagent-config as pure text: annotations, provenance, option lists. */
import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "../../../src/agents/parse.ts";
import {
  agentPickerChoices,
  agentPickerLine,
  bodySummary,
  fieldChoices,
  formatModelThinking,
  formatSavedFragment,
  modelActionChoices,
  modelsManagerTitle,
  modelsTargetChoices,
  modelValueChoices,
  thinkingChoices,
  writeTargetChoices,
  editorProblemNotice,
  fallbackText,
  modelClearedNotice,
  modelWrittenNotice,
  PROCESS_WRITE_NOTE,
  unknownAgentNotice,
} from "../../../src/commands/config-editor.ts";
import { emptyLayer, parseConfigLayer, type ConfigLayer } from "../../../src/config/load.ts";
import type { ConfigLayers } from "../../../src/config/resolve.ts";

function agent(fields: Partial<AgentDefinition> & { name: string }): AgentDefinition {
  return {
    description: "Does things",
    body: "Body line.",
    source: "project",
    filePath: `/p/.pi/agents/${fields.name}.md`,
    ...fields,
  };
}

function fileLayer(name: "user" | "project", content: Record<string, unknown>): ConfigLayer {
  return parseConfigLayer(JSON.stringify(content), name);
}

function processLayer(entries: ConfigLayer["entries"]): ConfigLayer {
  const layer = emptyLayer("process");
  Object.assign(layer.entries, entries);
  return layer;
}

const coder = agent({ name: "coder", model: "fm/model", thinking: "low" });

describe("annotations and provenance", () => {
  it("picker line: source, effective model and thinking; an unset slot says what is inherited", () => {
    expect(agentPickerLine(agent({ name: "bare", source: "builtin" }), {})).toBe(
      "bare (builtin) — inherits the main agent's model · thinking pi's default",
    );
    expect(agentPickerLine(coder, {})).toBe("coder (project) — fm/model · thinking low");
    const layers: ConfigLayers = { user: fileLayer("user", { coder: "u/model" }) };
    expect(agentPickerLine(coder, layers)).toBe("coder (project) — u/model · thinking low");
  });

  it("picker line: a Claude Code file's tier, and its model word matched to a model of $models", () => {
    const critic = agent({ name: "critic", source: "user", dialect: "claude", claudeModel: "opus" });
    expect(agentPickerLine(critic, {})).toBe(
      "critic (claude user) — inherits the main agent's model · thinking pi's default",
    );
    const layers: ConfigLayers = { user: fileLayer("user", { $models: ["a/claude-opus-4"] }) };
    expect(agentPickerLine(critic, layers)).toBe("critic (claude user) — a/claude-opus-4 · thinking pi's default");
    expect(agentPickerLine(agent({ name: "r", dialect: "claude" }), {})).toContain("r (claude project)");
  });

  it("picker line: a project entry shadows the user entry wholesale; unset fields fall to the frontmatter", () => {
    const layers: ConfigLayers = {
      user: fileLayer("user", { coder: { model: "u/model", thinking: "high" } }),
      project: fileLayer("project", { coder: { model: "p/model" } }),
    };
    expect(agentPickerLine(coder, layers)).toBe("coder (project) — p/model · thinking low");
    expect(fieldChoices(coder, layers)[4]!.label).toBe(
      "model & thinking — p/model (project) · thinking low (frontmatter)",
    );
  });

  it("a process override adds the (process) badge and the [saved: ...] fragment (file values, no inheritance)", () => {
    const layers: ConfigLayers = {
      project: fileLayer("project", { coder: { thinking: "high" } }),
      process: processLayer({ coder: { model: "x/mem" } }),
    };
    expect(agentPickerLine(coder, layers)).toBe(
      "coder (project) — x/mem · thinking low (process) [saved: fm/model (frontmatter) · thinking high (project)]",
    );
    const bare = agent({ name: "bare", source: "user" });
    const memory: ConfigLayers = { process: processLayer({ bare: { model: "x/mem", thinking: "max" } }) };
    expect(agentPickerLine(bare, memory)).toBe(
      "bare (user) — x/mem · thinking max (process) [saved: inherits the main agent's model · thinking pi's default]",
    );
    expect(formatSavedFragment({ model: {}, thinking: {} })).toBe(
      "[saved: inherits the main agent's model · thinking pi's default]",
    );
    expect(formatModelThinking({ model: { value: "a/1", source: "user" }, thinking: {} })).toBe(
      "a/1 (user) · thinking pi's default",
    );
  });

  it("the picker keeps the discovery order and puts the $models entry last", () => {
    const agents = [agent({ name: "a" }), agent({ name: "b", source: "user" })];
    const choices = agentPickerChoices({
      agents,
      layers: { user: emptyLayer("user"), project: emptyLayer("project"), process: emptyLayer("process") },
    });
    expect(choices.map((c) => c.label)).toEqual([
      "a (project) — inherits the main agent's model · thinking pi's default",
      "b (user) — inherits the main agent's model · thinking pi's default",
      "Manage available model list ($models)",
    ]);
    expect(choices.map((c) => c.value)).toEqual([
      { kind: "agent", name: "a" },
      { kind: "agent", name: "b" },
      { kind: "models" },
    ]);
  });

  it("shows the file's mcp and disallowedTools beside its tools", () => {
    const withMcp = agent({
      name: "docs",
      description: "d",
      tools: ["read"],
      mcp: ["probe"],
      disallowedTools: ["bash"],
    });
    expect(fieldChoices(withMcp, {})[1]!.label).toBe("tools — read · mcp: probe · disallowed: bash");
  });

  it("field options carry the current values; an empty skills key is shown as skills off", () => {
    const full = agent({
      name: "coder",
      description: "Writes\n  code",
      tools: ["read", "edit"],
      skills: [],
      body: "\nFirst line of the prompt.\nSecond.\nThird.",
      model: "fm/model",
    });
    expect(fieldChoices(full, {}).map((c) => c.label)).toEqual([
      "description — Writes code",
      "tools — read, edit",
      "skills — none (global skills off)",
      "body — First line of the prompt. (4 lines)",
      "model & thinking — fm/model (frontmatter) · thinking pi's default",
      "budget — not set",
      "sandbox — off (default)",
    ]);
    expect(fieldChoices(full, {}).map((c) => c.value)).toEqual([
      "description",
      "tools",
      "skills",
      "body",
      "model & thinking",
      "budget",
      "sandbox",
    ]);
    expect(fieldChoices({ ...full, sandbox: "workspace-write" }, {}).at(-1)?.label).toBe(
      "sandbox — workspace-write (frontmatter)",
    );
  });

  it("long values are cut to one readable line", () => {
    const long = agent({ name: "x", description: "d".repeat(200), body: "b".repeat(200) });
    const [description, , , body] = fieldChoices(long, {}).map((c) => c.label);
    expect(description).toBe(`description — ${"d".repeat(71)}…`);
    expect(body).toBe(`body — ${"b".repeat(71)}… (1 line)`);
    expect(bodySummary("  \n")).toBe("(empty)");
  });

  it("the action layer: edit with the effective values (and saved fragment), clear", () => {
    const layers: ConfigLayers = { process: processLayer({ coder: { thinking: "xhigh" } }) };
    expect(modelActionChoices(coder, layers).map((c) => c.label)).toEqual([
      "edit model & thinking — fm/model (frontmatter) · thinking xhigh (process) [saved: fm/model (frontmatter) · thinking low (frontmatter)]",
      "clear model & thinking (reset to frontmatter)",
    ]);
  });
});

describe("option lists", () => {
  it("thinking: the seven levels then `not set`, the effective one (or unset) marked (current)", () => {
    expect(thinkingChoices("high").map((c) => c.label)).toEqual([
      "off",
      "minimal",
      "low",
      "medium",
      "high (current)",
      "xhigh",
      "max",
      "not set",
    ]);
    expect(thinkingChoices(undefined).map((c) => c.label)).toEqual([
      "off",
      "minimal",
      "low",
      "medium",
      "high",
      "xhigh",
      "max",
      "not set (current)",
    ]);
    expect(thinkingChoices(undefined).map((c) => c.value)).toEqual([
      "off",
      "minimal",
      "low",
      "medium",
      "high",
      "xhigh",
      "max",
      null,
    ]);
  });

  it("write target: this process / user / project, the governing layer marked (current)", () => {
    expect(writeTargetChoices(undefined).map((c) => c.label)).toEqual(["this process", "user", "project"]);
    expect(writeTargetChoices("process").map((c) => c.label)).toEqual(["this process (current)", "user", "project"]);
    expect(writeTargetChoices("project").map((c) => c.value)).toEqual(["process", "user", "project"]);
    expect(modelsTargetChoices("project").map((c) => c.label)).toEqual(["user", "project (current)"]);
  });

  it("the $models select writes the id itself, whatever the annotation", () => {
    const choices = modelValueChoices(["a/1", "b/2"], "b/2");
    expect(choices).toEqual([
      { label: "a/1", value: "a/1" },
      { label: "b/2 (current)", value: "b/2" },
    ]);
  });

  it("the $models manager title shows the list and where it comes from", () => {
    const paths = { user: "/u/subagent-isolation.json", project: "/p/.pi/subagent-isolation.json" };
    expect(modelsManagerTitle({ models: ["a/1"], source: "project" }, paths)).toBe(
      "Available models ($models), from the project file (/p/.pi/subagent-isolation.json):\n  a/1",
    );
    expect(modelsManagerTitle({ models: [] }, paths)).toBe(
      "Available models ($models)\nThe list is empty ($models is not set in the user or project file).",
    );
  });
});

describe("notices", () => {
  const after = {
    model: { value: "m/1", source: "project" as const },
    thinking: { value: "high" as const, source: "project" as const },
  };

  it("the process write says it is memory only, in the spec's words", () => {
    expect(
      modelWrittenNotice({
        agentName: "coder",
        model: "m/1",
        thinking: "high",
        target: "process",
        changed: true,
        after,
        governingAfter: "process",
      }),
    ).toBe(`coder: model m/1, thinking high; ${PROCESS_WRITE_NOTE}. Takes effect on the next dispatch.`);
    expect(PROCESS_WRITE_NOTE).toBe(
      "written to this process (memory only — no file written; disappears when the process exits)",
    );
  });

  it("a clear names each field's fallback; frontmatter is claimed only when the chain reached it", () => {
    expect(fallbackText("model", { value: "u/1", source: "user" })).toBe("u/1 (user)");
    expect(fallbackText("thinking", { value: "low", source: "frontmatter" })).toBe("low (frontmatter)");
    expect(fallbackText("model", {})).toBe("not set (frontmatter has none; the main agent's model is inherited)");
    expect(fallbackText("thinking", {})).toBe("not set (frontmatter has none)");
    expect(
      modelClearedNotice({
        agentName: "coder",
        target: "user",
        filePath: "/u.json",
        changed: true,
        after: { model: {}, thinking: { value: "low", source: "frontmatter" } },
      }),
    ).toBe(
      "coder: model & thinking cleared in user (/u.json). Now: model not set (frontmatter has none; the main agent's model is inherited), thinking low (frontmatter). Takes effect on the next dispatch.",
    );
  });

  it("editor problems are told apart from an unchanged body", () => {
    expect(editorProblemNotice("coder", { kind: "launch-failed", command: "nope", reason: "ENOENT" })).toBe(
      'coder: could not start the editor "nope" (ENOENT); nothing written. Set $EDITOR (or $VISUAL) to an editor that runs here.',
    );
    expect(editorProblemNotice("coder", { kind: "exit-code", command: "vim", code: 2, signal: null })).toBe(
      'coder: the editor "vim" exited with code 2; nothing written.',
    );
  });

  it("an unknown agent lists what exists", () => {
    expect(unknownAgentNotice("x", [])).toBe(
      'Unknown agent "x". No agents are defined. Usage: /subagent-config [agent-name]',
    );
  });
});
