/**
 * The light entry's roster hooks: a child at the nesting limit returns at once and never loads the roster
 * builder; a child below the limit (PI_SUBAGENT_MAX_DEPTH passed down by its parent) gets the roster.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

const state = vi.hoisted(() => ({ loaded: 0 }));
vi.mock("../../../src/pi/roster.ts", () => {
  state.loaded += 1;
  return {
    createRosterHandler: () => (event: { systemPrompt: string }) => ({
      systemPrompt: `${event.systemPrompt}\n## Available Subagents`,
    }),
    createRosterContextHandler: () => () => undefined,
  };
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerRosterHook } from "../../../src/start/main-pi.ts";
import { cachedRoster, rememberRoster, rosterFingerprint } from "../../../src/roster/roster-cache.ts";

type Handler = (event: { systemPrompt: string }, ctx: unknown) => Promise<{ systemPrompt: string } | undefined>;

function hooks(): Record<string, Handler> {
  const handlers: Record<string, Handler> = {};
  registerRosterHook(
    { on: ((name: string, handler: Handler) => (handlers[name] = handler)) as never },
    () => import("../../../src/pi/roster.ts"),
  );
  return handlers;
}

const saved = {
  depth: process.env.PI_SUBAGENT_DEPTH,
  max: process.env.PI_SUBAGENT_MAX_DEPTH,
  agentDir: process.env.PI_CODING_AGENT_DIR,
};
afterEach(() => {
  for (const [name, value] of [
    ["PI_SUBAGENT_DEPTH", saved.depth],
    ["PI_SUBAGENT_MAX_DEPTH", saved.max],
    ["PI_CODING_AGENT_DIR", saved.agentDir],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the roster hooks of the light entry", () => {
  it("at the nesting limit add nothing and load nothing; below it they add the roster", async () => {
    process.env.PI_SUBAGENT_DEPTH = "2";
    process.env.PI_SUBAGENT_MAX_DEPTH = "2";
    const atLimit = hooks();
    expect(await atLimit["before_agent_start"]!({ systemPrompt: "base" }, {})).toBeUndefined();
    expect(await atLimit["context"]!({ systemPrompt: "base" }, {})).toBeUndefined();
    expect(state.loaded).toBe(0);

    process.env.PI_SUBAGENT_DEPTH = "1";
    const below = hooks();
    expect(await below["before_agent_start"]!({ systemPrompt: "base" }, {})).toEqual({
      systemPrompt: "base\n## Available Subagents",
    });
    expect(state.loaded).toBe(1);
  });
});

describe("the roster hooks with a remembered roster", () => {
  it("append the remembered block without loading the builder while no agent file changed, and build again once one did", async () => {
    delete process.env.PI_SUBAGENT_DEPTH;
    const root = mkdtempSync(join(tmpdir(), "roster-hook-"));
    try {
      const agentDir = join(root, "agent");
      const cwd = join(root, "work");
      mkdirSync(join(agentDir, "agents"), { recursive: true });
      mkdirSync(cwd);
      writeFileSync(join(agentDir, "agents", "mine.md"), "---\nname: mine\ndescription: Mine\n---\nBody\n");
      process.env.PI_CODING_AGENT_DIR = agentDir;
      await rememberRoster(rosterFingerprint(cwd), "## Available Subagents\n- remembered");
      const before = state.loaded;
      const remembered = hooks();
      expect(await remembered["before_agent_start"]!({ systemPrompt: "base" }, { cwd })).toEqual({
        systemPrompt: "base\n\n## Available Subagents\n- remembered",
      });
      // No result message in the call: the context hook loads nothing either.
      expect(await remembered["context"]!({ messages: [{ role: "user" }] } as never, { cwd })).toBeUndefined();
      expect(state.loaded).toBe(before);

      writeFileSync(join(agentDir, "agents", "other.md"), "---\nname: other\ndescription: Other\n---\nBody\n");
      expect(cachedRoster(rosterFingerprint(cwd))).toBeUndefined();
      const rebuilt = hooks();
      expect(await rebuilt["before_agent_start"]!({ systemPrompt: "base" }, { cwd })).toEqual({
        systemPrompt: "base\n## Available Subagents",
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("follows the agent files within one session: a file added, then removed, changes the next turn's block, and nothing else does", async () => {
    delete process.env.PI_SUBAGENT_DEPTH;
    const root = mkdtempSync(join(tmpdir(), "roster-hook-"));
    try {
      const agentDir = join(root, "agent");
      const cwd = join(root, "work");
      mkdirSync(join(agentDir, "agents"), { recursive: true });
      mkdirSync(cwd);
      writeFileSync(join(agentDir, "agents", "mine.md"), "---\nname: mine\ndescription: Mine\n---\nBody\n");
      process.env.PI_CODING_AGENT_DIR = agentDir;
      const withMine = rosterFingerprint(cwd);
      await rememberRoster(withMine, "## Available Subagents\n- mine");
      const session = hooks();
      const turn = async () => (await session["before_agent_start"]!({ systemPrompt: "base" }, { cwd }))?.systemPrompt;
      expect(await turn()).toBe("base\n\n## Available Subagents\n- mine");

      const added = join(agentDir, "agents", "other.md");
      writeFileSync(added, "---\nname: other\ndescription: Other\n---\nBody\n");
      await rememberRoster(rosterFingerprint(cwd), "## Available Subagents\n- mine\n- other");
      const loaded = state.loaded;
      expect(await turn()).toBe("base\n\n## Available Subagents\n- mine\n- other");
      expect(await turn()).toBe("base\n\n## Available Subagents\n- mine\n- other");

      rmSync(added);
      expect(rosterFingerprint(cwd)).toBe(withMine);
      expect(await turn()).toBe("base\n\n## Available Subagents\n- mine");
      // Every block came from the remembered ones: the builder was never needed.
      expect(state.loaded).toBe(loaded);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
