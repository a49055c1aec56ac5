import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { AgentDefinition, DiscoveryResult } from "../../../src/agents/parse.ts";
import { resetReportedWarningsForTests } from "../../../src/agents/warnings.ts";
import { resetSessionStartsForTests } from "../../../src/authority/session-start-read.ts";
import { createRosterHandler, registerRoster, type RosterOptions } from "../../../src/pi/roster.ts";
import { agentFile, createTempTree, type TempTree } from "../agents/temp-tree.ts";
import { discoverAgents } from "../../../src/agents/discover.ts";

const BASE = "You are pi, a coding agent.";

function discovery(
  agents: Array<Partial<AgentDefinition> & { name: string }>,
  warnings: DiscoveryResult["warnings"] = [],
): DiscoveryResult {
  return {
    agents: agents.map((a) => ({
      description: `${a.name} does things`,
      body: "",
      source: "user",
      filePath: `/a/${a.name}.md`,
      ...a,
    })),
    warnings,
    userAgentsDir: "/a",
    builtinAgentsDir: "/b",
  };
}

function fakeCtx(cwd = "/work", hasUI = false) {
  const notes: Array<[string, string | undefined]> = [];
  return {
    notes,
    ctx: { cwd, hasUI, ui: { notify: (m: string, t?: "info" | "warning" | "error") => void notes.push([m, t]) } },
  };
}

function handlerWith(result: () => DiscoveryResult, env: NodeJS.ProcessEnv = {}) {
  const discover = vi.fn((_cwd: string) => result());
  const options: RosterOptions = { discover, env };
  return { discover, handler: createRosterHandler(options) };
}

// Each test is a session of its own: its trust is read afresh, not kept from an earlier test's start.
beforeEach(() => {
  resetReportedWarningsForTests();
  resetSessionStartsForTests();
});
afterEach(() => vi.restoreAllMocks());

describe("roster injection", () => {
  it("in a project pi 1.x does not trust, lists no project agent and says once what was left out", () => {
    const discover = vi.fn((_cwd: string, projectAgents: boolean) => ({
      ...discovery([{ name: "explore", source: "builtin" }]),
      ...(projectAgents ? {} : { projectAgentsSkipped: "/repo/.pi/agents" }),
    }));
    const handler = createRosterHandler({ discover, env: {} });
    const { ctx, notes } = fakeCtx("/repo", true);
    const result = handler({ systemPrompt: BASE }, { ...ctx, isProjectTrusted: () => false });
    expect(discover).toHaveBeenCalledWith("/repo", false, true);
    expect(result?.systemPrompt).toContain("- explore ");
    expect(notes).toEqual([
      [
        "pi-subagent-dispatch: this project is not trusted, so its subagent files are not used (/repo/.pi/agents/); to use them, trust the project: start pi with --approve, or run /trust",
        "warning",
      ],
    ]);
  });

  it("appends the roster to the end of the system prompt", () => {
    const { handler, discover } = handlerWith(() =>
      discovery([
        { name: "coder", source: "project" },
        { name: "explore", source: "builtin" },
      ]),
    );
    const result = handler({ systemPrompt: BASE }, fakeCtx("/repo").ctx);
    expect(discover).toHaveBeenCalledWith("/repo", true, true);
    expect(result).toEqual({
      systemPrompt: [
        BASE,
        "",
        "## Available Subagents",
        "",
        "Delegate tasks to these specialized subagents via the `subagent` tool:",
        "",
        "- coder \u2014 coder does things (project)",
        "- explore \u2014 explore does things (builtin)",
      ].join("\n"),
    });
  });

  it("builds once and reuses the block on later turns, even when the agents change", () => {
    let agents = [{ name: "first" }];
    const { handler, discover } = handlerWith(() => discovery(agents));
    const { ctx } = fakeCtx();
    const one = handler({ systemPrompt: BASE }, ctx);
    agents = [{ name: "second" }];
    const two = handler({ systemPrompt: "Another base" }, ctx);
    expect(discover).toHaveBeenCalledTimes(1);
    expect(one?.systemPrompt).toContain("- first \u2014");
    expect(two?.systemPrompt).toMatch(/^Another base\n\n## Available Subagents/);
    expect(two?.systemPrompt).toContain("- first \u2014");
    expect(two?.systemPrompt).not.toContain("second");
  });

  it("a new handler (what /reload creates) discovers again", () => {
    let agents = [{ name: "first" }];
    const discover = vi.fn(() => discovery(agents));
    createRosterHandler({ discover, env: {} })({ systemPrompt: BASE }, fakeCtx().ctx);
    agents = [{ name: "second" }];
    const reloaded = createRosterHandler({ discover, env: {} })({ systemPrompt: BASE }, fakeCtx().ctx);
    expect(reloaded?.systemPrompt).toContain("- second \u2014");
  });

  it("an empty first build is kept: nothing is injected and discovery is not retried", () => {
    let agents: Array<{ name: string }> = [];
    const { handler, discover } = handlerWith(() => discovery(agents));
    expect(handler({ systemPrompt: BASE }, fakeCtx().ctx)).toBeUndefined();
    agents = [{ name: "late" }];
    expect(handler({ systemPrompt: BASE }, fakeCtx().ctx)).toBeUndefined();
    expect(discover).toHaveBeenCalledTimes(1);
  });

  it("a failing discovery injects nothing, never throws, and is not retried", () => {
    const discover = vi.fn((): DiscoveryResult => {
      throw new Error("disk on fire");
    });
    const handler = createRosterHandler({ discover, env: {} });
    expect(handler({ systemPrompt: BASE }, fakeCtx().ctx)).toBeUndefined();
    expect(handler({ systemPrompt: BASE }, fakeCtx().ctx)).toBeUndefined();
    expect(discover).toHaveBeenCalledTimes(1);
  });

  it("a missing cwd injects nothing", () => {
    const { handler, discover } = handlerWith(() => discovery([{ name: "a" }]));
    const { ctx } = fakeCtx("");
    expect(handler({ systemPrompt: BASE }, ctx)).toBeUndefined();
    expect(discover).not.toHaveBeenCalled();
  });
});

describe("the depth gate", () => {
  it.each([["1"], ["2"], [" 1 "], ["1.5"]])("PI_SUBAGENT_DEPTH=%j: nothing injected, nothing discovered", (depth) => {
    const { handler, discover } = handlerWith(() => discovery([{ name: "a" }]), { PI_SUBAGENT_DEPTH: depth });
    expect(handler({ systemPrompt: BASE }, fakeCtx().ctx)).toBeUndefined();
    expect(discover).not.toHaveBeenCalled();
  });

  it.each([["0"], [""], ["abc"], ["-1"], ["NaN"]])(
    "PI_SUBAGENT_DEPTH=%j counts as depth 0: the roster is injected",
    (depth) => {
      const { handler } = handlerWith(() => discovery([{ name: "a" }]), { PI_SUBAGENT_DEPTH: depth });
      expect(handler({ systemPrompt: BASE }, fakeCtx().ctx)?.systemPrompt).toContain("## Available Subagents");
    },
  );

  it("reads process.env by default", () => {
    const saved = process.env.PI_SUBAGENT_DEPTH;
    process.env.PI_SUBAGENT_DEPTH = "1";
    try {
      const discover = vi.fn(() => discovery([{ name: "a" }]));
      expect(createRosterHandler({ discover })({ systemPrompt: BASE }, fakeCtx().ctx)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.PI_SUBAGENT_DEPTH;
      else process.env.PI_SUBAGENT_DEPTH = saved;
    }
  });
});

describe("discovery warnings reach the person once", () => {
  const warned = () =>
    discovery(
      [{ name: "ok" }],
      [
        {
          filePath: "/p/.pi/agents/broken.md",
          reason: "no frontmatter (the file must start with a --- line)",
          skipped: true,
        },
      ],
    );
  const text =
    "pi-subagent-dispatch: skipped agent file /p/.pi/agents/broken.md: no frontmatter (the file must start with a --- line)";

  it("as a UI warning when there is a UI", () => {
    const { handler } = handlerWith(warned);
    const { ctx, notes } = fakeCtx("/p", true);
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    handler({ systemPrompt: BASE }, ctx);
    handler({ systemPrompt: BASE }, ctx);
    expect(notes).toEqual([[text, "warning"]]);
    expect(stderr).not.toHaveBeenCalled();
  });

  it("on stderr without a UI, and not again after a reload in the same process", () => {
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    handlerWith(warned).handler({ systemPrompt: BASE }, fakeCtx().ctx);
    handlerWith(warned).handler({ systemPrompt: BASE }, fakeCtx().ctx);
    expect(stderr.mock.calls).toEqual([[text]]);
  });
});

describe("registerRoster", () => {
  let tree: TempTree;
  beforeEach(() => {
    tree = createTempTree();
  });
  afterEach(() => tree.remove());

  it("subscribes to before_agent_start and injects the real discovery's roster", async () => {
    tree.write("builtin/explore.md", agentFile({ name: "explore", description: "Finds code" }));
    tree.write("agent/agents/writer.md", agentFile({ name: "writer", description: "Writes docs" }));
    tree.write("home/repo/.pi/agents/coder.md", agentFile({ name: "coder", description: "Writes code" }));
    const handlers = new Map<string, (event: unknown, ctx: unknown) => unknown>();
    const pi = {
      on: (event: string, handler: (event: unknown, ctx: unknown) => unknown) => void handlers.set(event, handler),
    };
    registerRoster(pi as unknown as Pick<ExtensionAPI, "on">, {
      env: {},
      discover: (cwd) =>
        discoverAgents({
          cwd,
          agentDir: tree.path("agent"),
          builtinDir: tree.path("builtin"),
          home: tree.path("home"),
        }),
    });
    expect([...handlers.keys()]).toEqual(["before_agent_start", "context"]);
    const result = (await handlers.get("before_agent_start")!(
      { systemPrompt: BASE },
      fakeCtx(tree.path("home/repo")).ctx,
    )) as { systemPrompt: string };
    expect(
      result.systemPrompt.endsWith(
        [
          "## Available Subagents",
          "",
          "Delegate tasks to these specialized subagents via the `subagent` tool:",
          "",
          "- coder \u2014 Writes code (project)",
          "- explore \u2014 Finds code (builtin)",
          "- writer \u2014 Writes docs (user)",
        ].join("\n"),
      ),
    ).toBe(true);
  });

  it("gives a result turn the roster when the system prompt lacks it (pi 0.73.1 runs no before_agent_start there)", async () => {
    tree.write("agent/agents/writer.md", agentFile({ name: "writer", description: "Writes docs" }));
    const handlers = new Map<string, (event: unknown, ctx: unknown) => unknown>();
    const pi = {
      on: (event: string, handler: (event: unknown, ctx: unknown) => unknown) => void handlers.set(event, handler),
    };
    registerRoster(pi as unknown as Pick<ExtensionAPI, "on">, {
      env: {},
      discover: (cwd) =>
        discoverAgents({
          cwd,
          agentDir: tree.path("agent"),
          builtinDir: tree.path("builtin"),
          home: tree.path("home"),
        }),
    });
    const result = {
      role: "custom",
      customType: "subagent-result",
      content: "## [subagent-result] writer succeeded",
      details: { taskId: "t1" },
    };
    const messages = [{ role: "user", content: "hi" }, result];
    const context = (systemPrompt: string) => ({
      ...fakeCtx(tree.path("home/repo")).ctx,
      getSystemPrompt: () => systemPrompt,
    });
    // A fresh process: pi's base prompt, without the roster.
    const out = (await handlers.get("context")!({ messages }, context(BASE))) as {
      messages: Array<{ content: string }>;
    };
    expect(out.messages[1]!.content).toBe(
      "## [subagent-result] writer succeeded\n\n(For reference while digesting this result: the subagents you can dispatch.)\n\n## Available Subagents\n\nDelegate tasks to these specialized subagents via the `subagent` tool:\n\n- writer \u2014 Writes docs (user)",
    );
    // pi's own session is untouched.
    expect(result.content).toBe("## [subagent-result] writer succeeded");
    // Once the prompt has the roster (a user turn ran before_agent_start, or pi 1.x), nothing is added.
    const withRoster = (await handlers.get("before_agent_start")!(
      { systemPrompt: BASE },
      fakeCtx(tree.path("home/repo")).ctx,
    )) as { systemPrompt: string };
    expect(await handlers.get("context")!({ messages }, context(withRoster.systemPrompt))).toBeUndefined();
    // No result in the call: nothing to add either.
    expect(await handlers.get("context")!({ messages: [messages[0]] }, context(BASE))).toBeUndefined();
  });

  it("adds nothing inside a subagent", async () => {
    const handlers = new Map<string, (event: unknown, ctx: unknown) => unknown>();
    const pi = {
      on: (event: string, handler: (event: unknown, ctx: unknown) => unknown) => void handlers.set(event, handler),
    };
    registerRoster(pi as unknown as Pick<ExtensionAPI, "on">, {
      env: { PI_SUBAGENT_DEPTH: "1" },
      discover: () => discovery([{ name: "coder" }]),
    });
    const messages = [{ role: "custom", customType: "subagent-result", content: "x", details: { taskId: "t1" } }];
    expect(
      await handlers.get("context")!({ messages }, { ...fakeCtx().ctx, getSystemPrompt: () => BASE }),
    ).toBeUndefined();
  });
});
