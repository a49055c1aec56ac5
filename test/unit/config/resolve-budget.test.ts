/**
 * Where a task's configured budget comes from: each limit on its own, the highest layer that sets it, then the
 * frontmatter, then the environment. A model entry above does not hide a lower layer's budget, and a budget entry
 * above does not hide a lower layer's model (that direction is in test/unit/config/resolve.test.ts).
 */
import { describe, expect, it } from "vitest";
import { emptyLayer, parseConfigLayer, type ConfigLayer } from "../../../src/config/load.ts";
import { applyCallBudget, resolveConfiguredBudget, resolveModelConfig } from "../../../src/config/resolve.ts";

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
