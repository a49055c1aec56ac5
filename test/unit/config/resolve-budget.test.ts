/**
 * Where a task's configured budget comes from: each limit on its own, the highest layer that sets it, then the
 * frontmatter, then the environment. A model entry above does not hide a lower layer's budget, and a budget entry
 * above does not hide a lower layer's model (that direction is in test/unit/config/resolve.test.ts).
 */
import { describe, expect, it } from "vitest";
import { emptyLayer, parseConfigLayer, type ConfigLayer } from "../../../src/config/load.ts";
import {
  applyCallBudget,
  resolveConfiguredBudget,
  resolveLoopGuard,
  resolveModelConfig,
} from "../../../src/config/resolve.ts";
import { parseAgentFile } from "../../../src/agents/parse.ts";

function layer(name: "user" | "project", entries: Record<string, unknown>): ConfigLayer {
  return parseConfigLayer(JSON.stringify(entries), name);
}

describe("budgets shadow per field", () => {
  it("a project entry setting the model does not hide the user entry's budgets", () => {
    const layers = {
      user: layer("user", { worker: { maxTurns: 5, maxCost: 2 } }),
      project: layer("project", { worker: { model: "p/m", maxCost: 0.5 } }),
    };
    expect(resolveConfiguredBudget({ name: "worker" }, layers, {})).toEqual({
      limits: { maxTurns: 5, maxCost: 0.5 },
      sources: { maxTurns: "user", maxCost: "project" },
      capped: [],
    });
  });

  it("the issue's case: project {maxTurns: 5} over user {model}: both hold, each from its own layer", () => {
    const layers = {
      user: layer("user", { worker: { model: "u/m" } }),
      project: layer("project", { worker: { maxTurns: 5 } }),
    };
    expect(resolveConfiguredBudget({ name: "worker" }, layers, {}).limits).toEqual({ maxTurns: 5 });
    expect(resolveModelConfig({ name: "worker" }, layers, "main/current").model).toEqual({
      value: "u/m",
      source: "user",
    });
  });

  it("the process layer sets one limit; the rest come from the files, the frontmatter and the environment", () => {
    const process = emptyLayer("process");
    process.entries.worker = { maxTokens: 1000 };
    const layers = { user: layer("user", { worker: { maxTurns: 8 } }), process };
    const resolved = resolveConfiguredBudget({ name: "worker", maxTurns: 2, maxCost: 3 }, layers, {
      maxTokens: 9,
      maxCost: 7,
    });
    expect(resolved.limits).toEqual({ maxTurns: 8, maxTokens: 1000, maxCost: 3 });
    expect(resolved.sources).toEqual({ maxTurns: "user", maxTokens: "process", maxCost: "frontmatter" });
    // A call still only lowers, and names the layer its limit came from.
    expect(applyCallBudget(resolved, { maxTurns: 20 }).capped).toEqual([
      "maxTurns 20 was capped at the configured 8 (user); a call can only lower a budget",
    ]);
  });
});

describe("a project can only tighten the person's budget", () => {
  it("a project entry above the user's limit is ignored; one below it wins", () => {
    const layers = {
      user: layer("user", { worker: { maxCost: 1, maxTurns: 10 } }),
      project: layer("project", { worker: { maxCost: 50, maxTurns: 3 } }),
    };
    expect(resolveConfiguredBudget({ name: "worker" }, layers, {})).toEqual({
      limits: { maxCost: 1, maxTurns: 3 },
      sources: { maxCost: "user", maxTurns: "project" },
      capped: [],
    });
  });
  it("a project agent's frontmatter cannot raise the person's environment default", () => {
    const layers = { project: layer("project", {}) };
    expect(
      resolveConfiguredBudget({ name: "worker", source: "project", maxTurns: 500 }, layers, { maxTurns: 20 }),
    ).toEqual({ limits: { maxTurns: 20 }, sources: { maxTurns: "env" }, capped: [] });
    expect(
      resolveConfiguredBudget({ name: "worker", source: "project", maxTurns: 5 }, layers, { maxTurns: 20 }),
    ).toEqual({ limits: { maxTurns: 5 }, sources: { maxTurns: "frontmatter" }, capped: [] });
  });
});

describe("the loop guard layers like a budget", () => {
  it("the person's entry, then the frontmatter, then the session default; a project only makes it stricter", () => {
    const none = {};
    expect(resolveLoopGuard({ name: "worker" }, none, 8)).toBe(8);
    expect(resolveLoopGuard({ name: "worker", loopGuard: 20 }, none, 8)).toBe(20);
    const user = layer("user", { worker: { loopGuard: false } });
    expect(user.warnings).toEqual([]);
    expect(resolveLoopGuard({ name: "worker", loopGuard: 20 }, { user }, 8)).toBe("off");
    // A repository may tighten the guard, never turn it off or loosen it.
    const strict = layer("project", { worker: { loopGuard: 4 } });
    expect(resolveLoopGuard({ name: "worker" }, { user, project: strict }, 8)).toBe(4);
    const off = layer("project", { worker: { loopGuard: 0 } });
    expect(resolveLoopGuard({ name: "worker" }, { project: off }, 8)).toBe(8);
    expect(resolveLoopGuard({ name: "worker", source: "project", loopGuard: Infinity }, none, 8)).toBe(8);
  });

  it("a bad value is ignored with the rule named", () => {
    const bad = layer("user", { worker: { loopGuard: 2, maxTurns: 5 } });
    expect(bad.warnings.join("\n")).toContain(
      '"loopGuard" must be false, 0, or a whole number of at least 3 (got \"2\"); that value is ignored',
    );
    expect(resolveLoopGuard({ name: "worker" }, { user: bad }, 8)).toBe(8);
  });

  it("the frontmatter takes false, 0 or a number", () => {
    const parse = (value: string) =>
      parseAgentFile(`---\nname: w\ndescription: d\nloopGuard: ${value}\n---\nbody`, "/w.md", "user");
    expect(parse("false")).toMatchObject({ agent: { loopGuard: Infinity } });
    expect(parse("12")).toMatchObject({ agent: { loopGuard: 12 } });
  });
});
