import { describe, expect, it } from "vitest";
import { parseConfigLayer, emptyLayer, type ConfigLayer } from "../../../src/config/load.ts";
import {
  currentModelRef,
  governingEntry,
  mergeOverrideEntries,
  resolveModelConfig,
  resolveSavedModelConfig,
  type ConfigLayers,
} from "../../../src/config/resolve.ts";

function layer(name: "user" | "project" | "process", entries: Record<string, unknown>): ConfigLayer {
  if (name === "process") {
    const result = emptyLayer("process");
    Object.assign(result.entries, entries);
    return result;
  }
  return parseConfigLayer(JSON.stringify(entries), name);
}

const coder = { name: "coder", model: "fm/model", thinking: "low" as const };
const bare = { name: "coder" };
const INHERITED = "main/current";

describe("resolveModelConfig: provenance of each value", () => {
  it("frontmatter when no layer has an entry", () => {
    expect(resolveModelConfig(coder, {}, INHERITED)).toEqual({
      model: { value: "fm/model", source: "frontmatter" },
      thinking: { value: "low", source: "frontmatter" },
    });
  });

  it("inherited for the model when nothing sets it; thinking is never inherited", () => {
    expect(resolveModelConfig(bare, {}, INHERITED)).toEqual({
      model: { value: INHERITED, source: "inherited" },
      thinking: {},
    });
  });

  it("not set at all when there is nothing to inherit", () => {
    expect(resolveModelConfig(bare, {})).toEqual({ model: {}, thinking: {} });
    expect(resolveModelConfig(bare, {}, "")).toEqual({ model: {}, thinking: {} });
  });

  it("user", () => {
    const layers = { user: layer("user", { coder: { model: "u/m", thinking: "high" } }) };
    expect(resolveModelConfig(coder, layers, INHERITED)).toEqual({
      model: { value: "u/m", source: "user" },
      thinking: { value: "high", source: "user" },
    });
  });

  it("project over user", () => {
    const layers = {
      user: layer("user", { coder: { model: "u/m", thinking: "high" } }),
      project: layer("project", { coder: { model: "p/m", thinking: "minimal" } }),
    };
    expect(resolveModelConfig(coder, layers, INHERITED)).toEqual({
      model: { value: "p/m", source: "project" },
      thinking: { value: "minimal", source: "project" },
    });
  });

  it("process over project and user", () => {
    const layers: ConfigLayers = {
      user: layer("user", { coder: { model: "u/m", thinking: "high" } }),
      project: layer("project", { coder: { model: "p/m", thinking: "minimal" } }),
      process: layer("process", { coder: { model: "mem/m", thinking: "max" } }),
    };
    expect(resolveModelConfig(coder, layers, INHERITED)).toEqual({
      model: { value: "mem/m", source: "process" },
      thinking: { value: "max", source: "process" },
    });
  });

  it("a legacy string entry sets the model only; thinking falls to the frontmatter", () => {
    const layers = { user: layer("user", { coder: "u/legacy" }) };
    expect(resolveModelConfig(coder, layers, INHERITED)).toEqual({
      model: { value: "u/legacy", source: "user" },
      thinking: { value: "low", source: "frontmatter" },
    });
  });

  it("entries for other agents change nothing", () => {
    const layers = { user: layer("user", { writer: { model: "u/m", thinking: "high" } }) };
    expect(resolveModelConfig(coder, layers, INHERITED)).toEqual(resolveModelConfig(coder, {}, INHERITED));
  });
});

describe("whole-key shadowing", () => {
  it("a project entry with only a model hides the user entry's thinking: thinking falls to the frontmatter", () => {
    const layers = {
      user: layer("user", { coder: { model: "u/m", thinking: "high" } }),
      project: layer("project", { coder: { model: "p/m" } }),
    };
    expect(resolveModelConfig(coder, layers, INHERITED)).toEqual({
      model: { value: "p/m", source: "project" },
      thinking: { value: "low", source: "frontmatter" },
    });
    // Without a frontmatter thinking it is simply not set, never the user's "high".
    expect(resolveModelConfig(bare, layers, INHERITED).thinking).toEqual({});
  });

  it("a project entry with only thinking hides the user entry's model: the model falls to frontmatter, then inherited", () => {
    const layers = {
      user: layer("user", { coder: "u/m" }),
      project: layer("project", { coder: { thinking: "xhigh" } }),
    };
    expect(resolveModelConfig(coder, layers, INHERITED).model).toEqual({ value: "fm/model", source: "frontmatter" });
    expect(resolveModelConfig(bare, layers, INHERITED).model).toEqual({ value: INHERITED, source: "inherited" });
  });

  it("a process entry hides both file entries the same way", () => {
    const layers = {
      user: layer("user", { coder: { thinking: "high" } }),
      project: layer("project", { coder: { model: "p/m", thinking: "medium" } }),
      process: layer("process", { coder: { thinking: "off" } }),
    };
    expect(resolveModelConfig(bare, layers, INHERITED)).toEqual({
      model: { value: INHERITED, source: "inherited" },
      thinking: { value: "off", source: "process" },
    });
  });

  it("an invalid project entry is dropped, so it does not shadow the user entry", () => {
    const project = layer("project", { coder: { thinking: "bogus" } });
    const layers = { user: layer("user", { coder: { model: "u/m" } }), project };
    expect(project.warnings).toHaveLength(1);
    expect(resolveModelConfig(bare, layers).model).toEqual({ value: "u/m", source: "user" });
  });

  it("governingEntry and mergeOverrideEntries agree with {...user, ...project, ...process}", () => {
    const layers = {
      user: layer("user", { a: "u/a", b: { model: "u/b", thinking: "high" }, c: "u/c" }),
      project: layer("project", { b: { thinking: "low" } }),
      process: layer("process", { c: { thinking: "max" } }),
    };
    expect(mergeOverrideEntries(layers)).toEqual({
      a: { model: "u/a" },
      b: { thinking: "low" },
      c: { thinking: "max" },
    });
    expect(governingEntry("b", layers)).toEqual({ entry: { thinking: "low" }, source: "project" });
    expect(governingEntry("c", layers)?.source).toBe("process");
    expect(governingEntry("missing", layers)).toBeUndefined();
    expect(governingEntry("toString", layers)).toBeUndefined();
  });
});

describe("resolveSavedModelConfig (what the files say, without the process layer)", () => {
  it("ignores the process entry and does not inherit", () => {
    const layers = {
      user: layer("user", { coder: { model: "u/m" } }),
      process: layer("process", { coder: { model: "mem/m", thinking: "high" } }),
    };
    expect(resolveModelConfig(bare, layers, INHERITED).model.source).toBe("process");
    expect(resolveSavedModelConfig(bare, layers)).toEqual({ model: { value: "u/m", source: "user" }, thinking: {} });
    expect(resolveSavedModelConfig(coder, { process: layers.process })).toEqual({
      model: { value: "fm/model", source: "frontmatter" },
      thinking: { value: "low", source: "frontmatter" },
    });
  });
});

describe("currentModelRef", () => {
  it("is provider/id, or undefined without a model", () => {
    expect(currentModelRef({ provider: "fake", id: "fake-model" })).toBe("fake/fake-model");
    expect(currentModelRef(undefined)).toBeUndefined();
  });
});

describe("an entry holding only budgets takes no part in model and thinking shadowing", () => {
  it("a project budget-only entry over a user model entry: the user's model and thinking still apply", () => {
    const layers = {
      user: layer("user", { worker: { model: "u/m", thinking: "high" } }),
      project: layer("project", { worker: { maxTurns: 5 } }),
    };
    expect(resolveModelConfig({ name: "worker" }, layers, INHERITED)).toEqual({
      model: { value: "u/m", source: "user" },
      thinking: { value: "high", source: "user" },
    });
    expect(governingEntry("worker", layers)?.source).toBe("user");
  });

  it("a process budget-only entry hides no file entry either, and a project model entry still hides the user's thinking", () => {
    const layers = {
      user: layer("user", { worker: { model: "u/m", thinking: "high" } }),
      project: layer("project", { worker: { model: "p/m", maxTurns: 3 } }),
      process: layer("process", { worker: { maxCost: 1 } }),
    };
    expect(resolveModelConfig({ name: "worker" }, layers, INHERITED)).toEqual({
      model: { value: "p/m", source: "project" },
      thinking: {},
    });
  });
});
