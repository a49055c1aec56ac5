import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findProjectPiDir, projectConfigPath, userConfigPath } from "../../../src/shared/config-paths.ts";
import { createTempTree, type TempTree } from "../agents/temp-tree.ts";

let tree: TempTree;
beforeEach(() => {
  tree = createTempTree();
});
afterEach(() => tree.remove());

describe("config file locations", () => {
  it("the user file is subagent-isolation.json in pi's agent dir", () => {
    expect(userConfigPath("/x/agent")).toBe("/x/agent/subagent-isolation.json");
  });

  it("the project file is in the nearest .pi folder walking up, whether or not the file exists yet", () => {
    const home = tree.mkdir("home");
    tree.write("home/repo/.pi/subagent-isolation.json", "{}");
    tree.mkdir("home/repo/pkg/.pi");
    expect(projectConfigPath(tree.mkdir("home/repo/pkg/src"), home)).toBe(
      tree.path("home/repo/pkg/.pi/subagent-isolation.json"),
    );
    expect(projectConfigPath(tree.mkdir("home/repo/other"), home)).toBe(
      tree.path("home/repo/.pi/subagent-isolation.json"),
    );
  });

  it("stops before the home directory, whose .pi is the user level", () => {
    const home = tree.mkdir("home");
    tree.mkdir("home/.pi");
    tree.mkdir(".pi");
    expect(findProjectPiDir(tree.mkdir("home/repo"), home)).toBeUndefined();
    expect(projectConfigPath(home, home)).toBeUndefined();
  });

  it("a file named .pi is not a folder", () => {
    const home = tree.mkdir("home");
    tree.write("home/repo/.pi", "not a folder");
    expect(findProjectPiDir(tree.path("home/repo"), home)).toBeUndefined();
  });
});
