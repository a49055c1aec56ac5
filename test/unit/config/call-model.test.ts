import { describe, expect, it } from "vitest";
import { callModelProblem, splitModelRef, resolveModelConfig } from "../../../src/config/resolve.ts";

const known = (provider: string, id: string) =>
  provider === "openrouter" ? id === "anthropic/claude-haiku" : provider === "fake" && id === "fake-model";

describe("a call's own model", () => {
  it("splits provider/id at the first slash, so an id may hold slashes", () => {
    expect(splitModelRef("openrouter/anthropic/claude-haiku")).toEqual({
      provider: "openrouter",
      id: "anthropic/claude-haiku",
    });
    expect(splitModelRef("fake-model")).toBeUndefined();
    expect(splitModelRef("/x")).toBeUndefined();
    expect(splitModelRef("fake/")).toBeUndefined();
  });

  it("must be a model pi knows; an empty $models list restricts nothing", () => {
    expect(callModelProblem("fake/fake-model", { models: [] }, known)).toBeUndefined();
    expect(
      callModelProblem("openrouter/anthropic/claude-haiku", { models: [], source: "project" }, known),
    ).toBeUndefined();
    expect(callModelProblem("fake/other", { models: [] }, known)).toMatch(
      /^Unknown model "fake\/other": give provider\/id/,
    );
  });

  it("must be in the $models list in force, and the refusal names the list's file and entries", () => {
    expect(callModelProblem("fake/fake-model", { models: ["a/b", "c/d"], source: "project" }, known)).toBe(
      'Model "fake/fake-model" is not in the $models list of the project subagent-isolation.json; allowed: a/b, c/d. Omit model to use the agent\'s own.',
    );
    expect(callModelProblem("fake/fake-model", { models: ["fake/fake-model"], source: "user" }, known)).toBeUndefined();
  });

  it("sits above every layer for its task, with the source call", () => {
    const agent = { name: "coder", model: "a/front", thinking: "low" as const };
    const layers = {
      process: {
        name: "process" as const,
        entries: { coder: { model: "a/proc", thinking: "medium" as const } },
        warnings: [],
      },
    };
    expect(resolveModelConfig(agent, layers, "a/main", { model: "a/call" })).toEqual({
      model: { value: "a/call", source: "call" },
      thinking: { value: "medium", source: "process" },
    });
    expect(resolveModelConfig(agent, layers, "a/main", { thinking: "off" })).toEqual({
      model: { value: "a/proc", source: "process" },
      thinking: { value: "off", source: "call" },
    });
  });
});
