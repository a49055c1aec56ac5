import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { givenThisPackage } from "../../../src/shared/this-process.ts";
import { REPO_ROOT } from "../../harness/pi-env.ts";

describe("givenThisPackage", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("knows the package by its folder or its entry, relative to the working folder or through a link", () => {
    dir = mkdtempSync(join(tmpdir(), "pi-subagent-own-"));
    symlinkSync(REPO_ROOT, join(dir, "linked"));
    expect(givenThisPackage(["node", "pi", "-e", REPO_ROOT], "/")).toBe(true);
    expect(givenThisPackage(["node", "pi", "--extension", "extension.ts"], REPO_ROOT)).toBe(true);
    expect(givenThisPackage(["node", "pi", `--extension=${join(dir, "linked", "extension.ts")}`], "/")).toBe(true);
    expect(givenThisPackage(["node", "pi", "-e", join(dir, "linked")], "/")).toBe(true);
  });

  it("is false for other extensions and for a pi given none", () => {
    expect(givenThisPackage(["node", "pi", "-e", join(REPO_ROOT, "src")], "/")).toBe(false);
    expect(givenThisPackage(["node", "pi", "--mode", "rpc"], REPO_ROOT)).toBe(false);
  });
});
