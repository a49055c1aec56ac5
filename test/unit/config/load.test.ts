import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, resetProcessOverridesForTests, setProcessOverride } from "../../../src/config/load.ts";
import { resolveModelConfig } from "../../../src/config/resolve.ts";
import { createTempTree, type TempTree } from "../agents/temp-tree.ts";

let tree: TempTree;
beforeEach(() => {
  tree = createTempTree();
  resetProcessOverridesForTests();
});
afterEach(() => {
  tree.remove();
  resetProcessOverridesForTests();
});

describe("loadConfig (all layers from disk and memory)", () => {
  it("reads the user file, the nearest project file and the process layer, and resolves across them", () => {
    const home = tree.mkdir("home");
    const agentDir = tree.mkdir("home/.pi/agent");
    tree.write(
      "home/.pi/agent/subagent-isolation.json",
      JSON.stringify({ $models: ["u/1"], coder: { model: "u/m", thinking: "high" }, writer: "u/w" }),
    );
    tree.write(
      "home/repo/.pi/subagent-isolation.json",
      "\uFEFF" + JSON.stringify({ coder: { model: "p/m" }, $models: ["p/1", "p/1"] }),
    );
    const cwd = tree.mkdir("home/repo/src");
    setProcessOverride("writer", { thinking: "max" });

    const config = loadConfig({ cwd, agentDir, home });
    expect(config.user.filePath).toBe(tree.path("home/.pi/agent/subagent-isolation.json"));
    expect(config.project.filePath).toBe(tree.path("home/repo/.pi/subagent-isolation.json"));
    expect(config.models).toEqual({ models: ["p/1"], source: "project" });
    expect(config.warnings).toEqual([]);
    expect(resolveModelConfig({ name: "coder", thinking: "low" }, config, "main/m")).toEqual({
      model: { value: "p/m", source: "project" },
      thinking: { value: "low", source: "frontmatter" },
    });
    expect(resolveModelConfig({ name: "writer" }, config, "main/m")).toEqual({
      model: { value: "main/m", source: "inherited" },
      thinking: { value: "max", source: "process" },
    });
  });

  it("collects the warnings of both files; a broken file counts as empty", () => {
    const home = tree.mkdir("home");
    const agentDir = tree.mkdir("agent");
    const userFile = tree.write("agent/subagent-isolation.json", "{ not json");
    const projectFile = tree.write("home/repo/.pi/subagent-isolation.json", '{"a": 1, "b": "p/b"}');
    const config = loadConfig({ cwd: tree.path("home/repo"), agentDir, home });
    expect(config.user.entries).toEqual({});
    expect(config.project.entries).toEqual({ b: { model: "p/b" } });
    expect(config.warnings).toHaveLength(2);
    expect(config.warnings[0]).toContain(userFile);
    expect(config.warnings[1]).toContain(projectFile);
  });

  it("has no project file path when no .pi folder exists below home", () => {
    const home = tree.mkdir("home");
    const config = loadConfig({ cwd: tree.mkdir("home/repo"), agentDir: tree.mkdir("agent"), home });
    expect(config.project).toEqual({ name: "project", entries: {}, warnings: [] });
    expect(config.models).toEqual({ models: [] });
  });

  it("reads a file that is both the user and the project file once, as user", () => {
    const home = tree.mkdir("home");
    tree.write("work/.pi/subagent-isolation.json", '{"a": "x/y"}');
    const config = loadConfig({ cwd: tree.path("work"), agentDir: tree.path("work/.pi"), home });
    expect(config.user.entries).toEqual({ a: { model: "x/y" } });
    expect(config.project.entries).toEqual({});
  });
});
