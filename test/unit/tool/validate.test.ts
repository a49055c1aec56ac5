import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "../../../src/agents/parse.ts";
import { checkDepth, describeAvailable, validateDispatch } from "../../../src/tool/validate.ts";
import type { SubagentParams } from "../../../src/tool/schema.ts";

function agent(name: string, source: AgentDefinition["source"]): AgentDefinition {
  return { name, description: `${name} agent`, body: `You are ${name}.`, source, filePath: `/agents/${name}.md` };
}

const AGENTS = [agent("coder", "project"), agent("explore", "builtin"), agent("writer", "user")];
const AVAILABLE = "coder (project), explore (builtin), writer (user)";
const V7 = "01912345-6789-7abc-8def-0123456789ab";

function rejection(params: SubagentParams, agents = AGENTS): string {
  const result = validateDispatch(params, agents);
  if (result.ok) throw new Error("expected a rejection");
  return result.message;
}

describe("checkDepth (the depth gate)", () => {
  it("lets the main agent through", () => {
    expect(checkDepth(0).ok).toBe(true);
  });

  it("blocks a subagent at depth 1 and deeper, saying why", () => {
    for (const depth of [1, 2]) {
      const result = checkDepth(depth);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.message.startsWith("Subagent tool is blocked: depth limit reached")).toBe(true);
      expect(result.message).toContain(`PI_SUBAGENT_DEPTH=${depth}`);
      expect(result.message).not.toContain("\u2014");
    }
  });

  it("with a deeper limit lets a child through and stops the level at the limit, naming it", () => {
    expect(checkDepth(1, 2).ok).toBe(true);
    const atLimit = checkDepth(2, 2);
    expect(atLimit.ok).toBe(false);
    if (!atLimit.ok) expect(atLimit.message).toContain("PI_SUBAGENT_DEPTH=2 and the limit is 2");
    expect(checkDepth(1).ok ? "" : (checkDepth(1) as { message: string }).message).toContain("and the limit is 1)");
  });
});

describe("validateDispatch: context", () => {
  const forkAgent = { ...AGENTS[0]!, name: "forker", context: "fork" as const };
  it("takes the call's context, else the agent's, else fresh", () => {
    const ok = (params: Parameters<typeof validateDispatch>[0], agents = AGENTS) => {
      const result = validateDispatch(params, agents);
      if (!result.ok) throw new Error(result.message);
      return result.value.context;
    };
    expect(ok({ agent: "coder", task: "x" })).toBe("fresh");
    expect(ok({ agent: "coder", task: "x", context: "fork" })).toBe("fork");
    expect(ok({ agent: "forker", task: "x" }, [forkAgent])).toBe("fork");
    expect(ok({ agent: "forker", task: "x", context: "fresh" }, [forkAgent])).toBe("fresh");
  });

  it("resumes an agent whose default is fork as a plain resume, and refuses an explicit fork with sessionId", () => {
    const resumed = validateDispatch({ agent: "forker", task: "x", sessionId: V7 }, [forkAgent]);
    expect(resumed.ok && resumed.value.context).toBe("fresh");
    expect(rejection({ agent: "coder", task: "x", sessionId: V7, context: "fork" })).toBe(
      'context "fork" cannot be combined with sessionId: a resumed session continues its own conversation. Omit context to resume, or omit sessionId to start a new forked task.',
    );
  });
});

describe("validateDispatch: messages", () => {
  it("rejects a missing or blank task", () => {
    const expected =
      'The "task" parameter is required for action=dispatch and must not be blank. Describe the background, input, requirements, output format and acceptance criteria.';
    expect(rejection({ agent: "coder" })).toBe(expected);
    expect(rejection({ agent: "coder", task: "" })).toBe(expected);
    expect(rejection({ agent: "coder", task: " \n\t " })).toBe(expected);
  });

  it("rejects a missing or blank agent, listing the available ones", () => {
    const expected = `The "agent" parameter is required for action=dispatch. Available agents: ${AVAILABLE}.`;
    expect(rejection({ task: "do it" })).toBe(expected);
    expect(rejection({ task: "do it", agent: "  " })).toBe(expected);
  });

  it("rejects an unknown agent, listing the available ones", () => {
    expect(rejection({ task: "do it", agent: "reviewer" })).toBe(
      `Unknown agent "reviewer". Available agents: ${AVAILABLE}.`,
    );
    expect(rejection({ task: "do it", agent: "Coder" })).toBe(`Unknown agent "Coder". Available agents: ${AVAILABLE}.`);
  });

  it("says how to add agents when there are none", () => {
    expect(rejection({ task: "do it", agent: "coder" }, [])).toBe(
      'Unknown agent "coder". Available agents: none (add agent files under .pi/agents/ or the user agents folder).',
    );
    expect(describeAvailable([])).toMatch(/^none/);
  });

  it("rejects a sessionId that is a slug, an uppercase UUID or a UUID v4, without hinting at the expected shape", () => {
    for (const bad of [
      "my-session",
      V7.toUpperCase(),
      "0f8fad5b-d9cb-469f-a165-70867728950e",
      `${V7}x`,
      "01912345-6789-7abc-cdef-0123456789ab",
    ]) {
      const message = rejection({ task: "do it", agent: "coder", sessionId: bad });
      expect(message).toBe(
        `"${bad}" is not a sessionId this tool handed out. Omit sessionId to start a fresh session (an id is generated for you), or pass exactly the taskId from an earlier subagent receipt or the id from a "[subagent session: <id>]" line to resume that session.`,
      );
      expect(message).not.toMatch(/uuid|v7|lowercase|hex/i);
    }
  });

  it("model-facing messages use no em dash", () => {
    const messages = [
      rejection({ agent: "coder" }),
      rejection({ task: "x" }),
      rejection({ task: "x", agent: "nobody" }),
      rejection({ task: "x", agent: "coder", sessionId: "nope" }),
    ];
    for (const message of messages) expect(message).not.toContain("\u2014");
  });
});

describe("validateDispatch: order", () => {
  it("checks the task before the agent", () => {
    expect(rejection({})).toMatch(/^The "task" parameter/);
    expect(rejection({ agent: "nobody", task: " " })).toMatch(/^The "task" parameter/);
  });

  it("checks the agent before the sessionId", () => {
    expect(rejection({ task: "x", sessionId: "bad" })).toMatch(/^The "agent" parameter/);
    expect(rejection({ task: "x", agent: "nobody", sessionId: "bad" })).toMatch(/^Unknown agent/);
  });
});

describe("validateDispatch: accepted calls", () => {
  it("accepts a lowercase UUID v7 sessionId and fills the defaults", () => {
    const result = validateDispatch({ agent: "coder", task: "Add tests", sessionId: V7 }, AGENTS);
    expect(result).toEqual({
      ok: true,
      value: {
        kind: "dispatch",
        agent: AGENTS[0],
        task: "Add tests",
        sessionId: V7,
        context: "fresh",
        agentScope: "both",
        confirmProjectAgents: false,
        isolation: "none",
        isolationRequested: false,
      },
    });
  });

  it("trims the agent name and the sessionId, keeps the task as written", () => {
    const result = validateDispatch({ agent: " explore ", task: "  look around\n", sessionId: ` ${V7} ` }, AGENTS);
    expect(result.ok && result.value).toMatchObject({
      agent: { name: "explore" },
      task: "  look around\n",
      sessionId: V7,
    });
  });

  it("passes agentScope and confirmProjectAgents through", () => {
    const result = validateDispatch(
      { agent: "coder", task: "x", agentScope: "project", confirmProjectAgents: true },
      AGENTS,
    );
    expect(result.ok && result.value).toMatchObject({ agentScope: "project", confirmProjectAgents: true });
  });
});

describe("validateDispatch: isolation", () => {
  const worktreeAgent: AgentDefinition = { ...agent("isolated", "project"), isolation: "worktree" };

  function accepted(params: SubagentParams, agents: AgentDefinition[] = [...AGENTS, worktreeAgent]) {
    const result = validateDispatch(params, agents);
    if (!result.ok) throw new Error(result.message);
    return result.value;
  }

  it("is none unless the call or the agent asks for a worktree; the call wins", () => {
    expect(accepted({ agent: "coder", task: "t" })).toMatchObject({ isolation: "none", isolationRequested: false });
    expect(accepted({ agent: "coder", task: "t", isolation: "worktree" })).toMatchObject({
      isolation: "worktree",
      isolationRequested: true,
    });
    expect(accepted({ agent: "isolated", task: "t" })).toMatchObject({
      isolation: "worktree",
      isolationRequested: false,
    });
    expect(accepted({ agent: "isolated", task: "t", isolation: "none" })).toMatchObject({ isolation: "none" });
  });

  it("refuses an unknown value, naming the two it accepts", () => {
    expect(rejection({ agent: "coder", task: "t", isolation: "sandbox" as never })).toBe(
      'Invalid isolation "sandbox": use "none" (share the working tree) or "worktree" (a git worktree of HEAD on its own branch).',
    );
  });
});

describe("validateDispatch: sandbox", () => {
  it("passes the call's level on, and none when the call has none", () => {
    const withLevel = validateDispatch({ agent: "coder", task: "t", sandbox: "read-only" }, AGENTS);
    expect(withLevel.ok && withLevel.value.sandbox).toBe("read-only");
    const without = validateDispatch({ agent: "coder", task: "t" }, AGENTS);
    expect(without.ok && "sandbox" in without.value).toBe(false);
  });

  it("refuses an unknown level, naming the three", () => {
    expect(rejection({ agent: "coder", task: "t", sandbox: "strict" as never })).toBe(
      'Invalid sandbox "strict": use one of off, workspace-write, read-only (a call can only make the agent\'s sandbox stricter).',
    );
  });
});
