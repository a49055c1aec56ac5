/**
 * The light entry's roster hooks: a child at the nesting limit returns at once and never loads the roster
 * builder; a child below the limit (PI_SUBAGENT_MAX_DEPTH passed down by its parent) gets the roster.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

const state = vi.hoisted(() => ({ loaded: 0 }));
vi.mock("../../../src/roster/register.ts", () => {
  state.loaded += 1;
  return {
    createRosterHandler: () => (event: { systemPrompt: string }) => ({ systemPrompt: `${event.systemPrompt}\n## Available Subagents` }),
    createRosterContextHandler: () => () => undefined,
  };
});

import { registerRosterHook } from "../../../src/roster/hook.ts";

type Handler = (event: { systemPrompt: string }, ctx: unknown) => Promise<{ systemPrompt: string } | undefined>;

function hooks(): Record<string, Handler> {
  const handlers: Record<string, Handler> = {};
  registerRosterHook({ on: ((name: string, handler: Handler) => (handlers[name] = handler)) as never });
  return handlers;
}

const saved = { depth: process.env.PI_SUBAGENT_DEPTH, max: process.env.PI_SUBAGENT_MAX_DEPTH };
afterEach(() => {
  for (const [name, value] of [["PI_SUBAGENT_DEPTH", saved.depth], ["PI_SUBAGENT_MAX_DEPTH", saved.max]] as const) {
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
    expect(await below["before_agent_start"]!({ systemPrompt: "base" }, {})).toEqual({ systemPrompt: "base\n## Available Subagents" });
    expect(state.loaded).toBe(1);
  });
});
