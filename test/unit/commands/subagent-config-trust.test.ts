/** /subagent-config in a project pi does not trust: nothing of the project's is shown, offered or written. */
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createConfigStore } from "../../../src/commands/config-store.ts";
import { modelsTargetChoices, writeTargetChoices } from "../../../src/commands/config-editor.ts";
import { createWorld, type World } from "../pi/commands/subagent-config-fixtures.ts";

let world: World | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe("the config store of an untrusted project", () => {
  it("reads neither the project's agents nor its file, offers no project target, and refuses a project write", async () => {
    world = createWorld({ projectConfig: { helper: { model: "fake/project-model" } } });
    const { cwd, agentDir, home, builtinDir } = world;
    const trusted = createConfigStore({ cwd, agentDir, home, builtinDir }).load();
    expect(trusted.agents.map((agent) => agent.name)).toContain("worker");
    expect(trusted.layers.project.entries["helper"]).toEqual({ model: "fake/project-model" });

    const store = createConfigStore({ cwd, agentDir, home, builtinDir, projectTrusted: false });
    const snapshot = store.load();
    expect(snapshot.agents.map((agent) => agent.name)).not.toContain("worker");
    expect(snapshot.layers.project.entries).toEqual({});
    expect(snapshot.configPaths.project).toBeUndefined();
    expect(snapshot.agentDirs.project).toBeUndefined();
    expect(snapshot.projectUntrusted).toBe(true);
    await expect(store.writeModelConfig("project", "helper", { model: "fake/other" })).rejects.toThrow(
      /^Not saved: this project is not trusted in this session/,
    );
    expect(existsSync(world.userConfig)).toBe(false);
  });

  it("leaves the project out of the write-target choices", () => {
    expect(writeTargetChoices(undefined, false).map((choice) => choice.value)).toEqual(["process", "user"]);
    expect(modelsTargetChoices(undefined, false).map((choice) => choice.value)).toEqual(["user"]);
    expect(writeTargetChoices(undefined).map((choice) => choice.value)).toEqual(["process", "user", "project"]);
  });
});
