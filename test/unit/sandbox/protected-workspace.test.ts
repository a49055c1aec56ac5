import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitDirsOf, readProtectedWorkspace } from "../../../src/sandbox/sandbox-layout.ts";
import { claimMountPoints } from "../../../src/sandbox/mount-points.ts";
import type { MountPointDeps } from "../../../src/sandbox/mount-points.ts";

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
    expect(readProtectedWorkspace(dir).paths.filter((entry) => entry.path === join(dir, ".git"))).toEqual([
      { path: join(dir, ".git"), kind: "directory", exists: true },
    ]);
  });
});

describe("mount points", () => {
  /** A pi process as the shared record sees it, alive while `alive` holds its pid. */
  function piProcess(dir: string, pid: number, alive: Set<number>): MountPointDeps {
    return {
      recordRoot: join(dir, "agent", "subagent-mount-points"),
      owner: { pid, start: "100" },
      isAlive: (identity) => alive.has(identity.pid),
    };
  }

  it("removes an empty folder or file bubblewrap made once the last child using it has ended, and keeps one that is not empty or was the person's", () => {
    const dir = tempRoot();
    const alive = new Set([11]);
    const pi = piProcess(dir, 11, alive);
    const folder = join(dir, ".claude");
    const file = join(dir, "AGENTS.md");
    const written = join(dir, "CLAUDE.md");
    const persons = join(dir, ".agents");
    mkdirSync(persons);
    // Missing when claimed: bubblewrap then makes them.
    const first = claimMountPoints([folder, file, written, persons], pi);
    mkdirSync(folder);
    writeFileSync(file, "");
    writeFileSync(written, "the person's");
    const second = claimMountPoints([folder], pi);
    first.release();
    // Another child still has its mount on the folder.
    expect(existsSync(folder)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(written)).toBe(true);
    expect(existsSync(persons)).toBe(true);
    second.release();
    expect(existsSync(folder)).toBe(false);
    // Nothing of the record is left once no child uses a path.
    expect(readdirSync(pi.recordRoot)).toEqual([]);
  });

  it("keeps a mount point another pi process's running child still uses, whichever started first, and removes it after the last", () => {
    const dir = tempRoot();
    const alive = new Set([11, 22]);
    const folder = join(dir, ".pi");
    const mine = claimMountPoints([folder], piProcess(dir, 11, alive));
    mkdirSync(folder);
    // The other pi's child sees an empty folder (the first one's mount point) and mounts over it too.
    const theirs = claimMountPoints([folder], piProcess(dir, 22, alive));
    mine.release();
    expect(existsSync(folder)).toBe(true);
    theirs.release();
    expect(existsSync(folder)).toBe(false);
    const again = claimMountPoints([folder], piProcess(dir, 22, alive));
    mkdirSync(folder);
    const later = claimMountPoints([folder], piProcess(dir, 11, alive));
    again.release();
    expect(existsSync(folder)).toBe(true);
    later.release();
    expect(existsSync(folder)).toBe(false);
  });

  it("clears the claim of a pi that no longer runs (killed with its child) and removes the mount point it left", () => {
    const dir = tempRoot();
    const alive = new Set([11, 22]);
    const file = join(dir, "AGENTS.md");
    claimMountPoints([file], piProcess(dir, 22, alive));
    writeFileSync(file, "");
    const mine = claimMountPoints([file], piProcess(dir, 11, alive));
    alive.delete(22);
    mine.release();
    expect(existsSync(file)).toBe(false);
  });

  it("a removal left by a pi that no longer runs does not hold a start up, and a release keeps the path while another claim is held", () => {
    const dir = tempRoot();
    const alive = new Set([11]);
    const pi = piProcess(dir, 11, alive);
    const folder = join(dir, ".agents");
    const held = claimMountPoints([folder], pi);
    mkdirSync(folder);
    const [recordDir] = readdirSync(pi.recordRoot);
    writeFileSync(join(pi.recordRoot, recordDir!, "removing-33_100_1"), `${folder}\n`);
    const started = Date.now();
    const other = claimMountPoints([folder], pi);
    expect(Date.now() - started).toBeLessThan(1000);
    held.release();
    expect(existsSync(folder)).toBe(true);
    other.release();
    expect(existsSync(folder)).toBe(false);
  });
});
