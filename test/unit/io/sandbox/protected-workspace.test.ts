import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitDirsOf, readProtectedWorkspace } from "../../../../src/io/sandbox/sandbox-layout.ts";
import { claimMountPoints, releaseMountPoints } from "../../../../src/io/sandbox/mount-points.ts";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tempRoot(): string {
  root = realpathSync(mkdtempSync(join(tmpdir(), "protected-workspace-")));
  return root;
}

describe("readProtectedWorkspace", () => {
  it("lists git's and pi's names in the folder, each marked whether it exists, missing ones with the kind to make", () => {
    const dir = tempRoot();
    mkdirSync(join(dir, ".pi"));
    writeFileSync(join(dir, "AGENTS.md"), "x");
    const { paths, links } = readProtectedWorkspace(dir, []);
    expect(links).toEqual([]);
    expect(paths).toEqual([
      { path: join(dir, ".git"), kind: "directory", exists: false },
      { path: join(dir, ".pi"), kind: "directory", exists: true },
      { path: join(dir, ".agents"), kind: "directory", exists: false },
      { path: join(dir, ".claude"), kind: "directory", exists: false },
      { path: join(dir, "AGENTS.md"), kind: "file", exists: true },
      { path: join(dir, "CLAUDE.md"), kind: "file", exists: false },
    ]);
  });

  it("names a protected link instead of protecting it (a mount would cover only its target)", () => {
    const dir = tempRoot();
    writeFileSync(join(dir, "AGENTS.md"), "x");
    symlinkSync("AGENTS.md", join(dir, "CLAUDE.md"));
    expect(readProtectedWorkspace(dir, []).links).toEqual([join(dir, "CLAUDE.md")]);
  });

  it("asks git for the repository's dirs, with a planted fsmonitor not run, and protects those inside the folder", () => {
    const dir = tempRoot();
    execFileSync("git", ["init", "--quiet", dir]);
    const marker = join(dir, "..", `${root.split("/").pop()}-fsmonitor-ran`);
    execFileSync("git", ["-C", dir, "config", "core.fsmonitor", `touch ${marker}; false`]);
    expect(gitDirsOf(dir).map((path) => realpathSync(path))).toEqual([join(dir, ".git"), join(dir, ".git")]);
    expect(existsSync(marker)).toBe(false);
    const sub = join(dir, "sub");
    mkdirSync(sub);
    // From a subfolder, the repository's .git lies outside the writable folder: only the folder's own names count.
    expect(readProtectedWorkspace(sub).paths.map((entry) => entry.path)).not.toContain(join(dir, ".git"));
    expect(readProtectedWorkspace(dir).paths.filter((entry) => entry.path === join(dir, ".git"))).toEqual([{ path: join(dir, ".git"), kind: "directory", exists: true }]);
  });
});

describe("mount points", () => {
  it("removes an empty folder or file bubblewrap made once the last child using it has ended, and keeps one that is not empty", () => {
    const dir = tempRoot();
    const folder = join(dir, ".claude");
    const file = join(dir, "AGENTS.md");
    const written = join(dir, "CLAUDE.md");
    mkdirSync(folder);
    writeFileSync(file, "");
    writeFileSync(written, "the person's");
    claimMountPoints([folder, file, written]);
    claimMountPoints([folder]);
    releaseMountPoints([folder, file, written]);
    // Another child still has its mount on the folder.
    expect(existsSync(folder)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(written)).toBe(true);
    releaseMountPoints([folder]);
    expect(existsSync(folder)).toBe(false);
  });
});
