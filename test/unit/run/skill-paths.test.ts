import { describe, expect, it } from "vitest";
import { resolveSkillPaths } from "../../../src/run/command-line.ts";

const CWD = "/work/project";
const HOME = "/home/me";

describe("resolveSkillPaths", () => {
  it("expands ~ to the home directory", () => {
    expect(resolveSkillPaths(["~/skills/review", "~"], CWD, HOME)).toEqual({
      paths: ["/home/me/skills/review", "/home/me"],
      warnings: [],
    });
  });

  it("keeps absolute paths as they are", () => {
    expect(resolveSkillPaths(["/opt/skills/lint"], CWD, HOME)).toEqual({ paths: ["/opt/skills/lint"], warnings: [] });
  });

  it("takes relative paths from the working directory", () => {
    expect(resolveSkillPaths(["skills/a", "./skills/b", "x/../skills/c"], CWD, HOME).paths).toEqual([
      "/work/project/skills/a",
      "/work/project/skills/b",
      "/work/project/skills/c",
    ]);
  });

  it("drops a relative path that escapes the working directory, with a warning naming it", () => {
    const result = resolveSkillPaths(["../other/skill", "skills/ok", "a/../../x", ".."], CWD, HOME);
    expect(result.paths).toEqual(["/work/project/skills/ok"]);
    expect(result.warnings).toEqual([
      'skill path "../other/skill" leaves the working directory and was not loaded',
      'skill path "a/../../x" leaves the working directory and was not loaded',
      'skill path ".." leaves the working directory and was not loaded',
    ]);
  });

  it("keeps a relative name that merely starts with two dots", () => {
    expect(resolveSkillPaths(["..skills"], CWD, HOME)).toEqual({ paths: ["/work/project/..skills"], warnings: [] });
  });

  it("skips blank entries and removes duplicates", () => {
    expect(resolveSkillPaths(["", "  ", "skills/a", " skills/a ", "/work/project/skills/a"], CWD, HOME)).toEqual({
      paths: ["/work/project/skills/a"],
      warnings: [],
    });
  });

  it("gives nothing for an empty list", () => {
    expect(resolveSkillPaths([], CWD, HOME)).toEqual({ paths: [], warnings: [] });
  });
});
