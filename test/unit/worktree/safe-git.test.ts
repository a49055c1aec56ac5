/**
 * The package's git calls against a real repository whose own config names commands (an fsmonitor hook, filter,
 * diff and merge drivers that `.gitattributes` assigns to every file): taking a worktree, committing the task's
 * work, merging it home and listing it run none of them (this failed before every call was a safe one). And a task
 * worktree whose `.git` leads to a git dir the child made is never read, even when that git dir names the
 * project's common dir (so the top folder and the common dir git reports look right): finish leaves it, resume
 * refuses it.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repositoryOverrides, checkWorktreeGitDir } from "../../../src/worktree/git.ts";
import { createWorktree, resumeWorktree, listOurWorktrees } from "../../../src/worktree/lease.ts";
import { mergeTaskWorktree } from "../../../src/worktree/merge.ts";

const TASK = "01900000-0000-7000-8000-00000000abcd";
const run = { taskId: TASK, agent: "worker", task: "Do the thing", status: "succeeded" };

let root: string;
let repo: string;
let agentDir: string;
let marker: string;

/** The test's own git: never through the planted settings. */
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "core.fsmonitor=false", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
const ran = () => (existsSync(marker) ? readFileSync(marker, "utf8") : "");

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "safe-git-"));
  repo = join(root, "repo");
  agentDir = join(root, "agent");
  marker = join(root, "planted-ran");
  mkdirSync(repo);
  git(repo, "init", "--quiet", "-b", "main");
  git(repo, "config", "user.name", "P");
  git(repo, "config", "user.email", "p@example.invalid");
  writeFileSync(join(repo, "a.txt"), "a\n");
  git(repo, "add", "-A");
  git(repo, "commit", "--quiet", "-m", "start");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A script that records how it was called, then behaves as a harmless filter (copies stdin). */
function plant(): string {
  const script = join(root, "planted.sh");
  writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
  chmodSync(script, 0o755);
  return script;
}

describe("the repository's config runs nothing through the package's git", () => {
  it("fsmonitor, filter, diff and merge drivers and an external diff in .git/config: a worktree task, its commit, the listing and the merge run none", () => {
    const script = plant();
    writeFileSync(join(repo, ".gitattributes"), "* filter=evil diff=evil merge=evil\n");
    git(repo, "add", "-A");
    git(repo, "commit", "--quiet", "-m", "attributes");
    for (const [key, value] of [
      ["core.fsmonitor", script],
      ["filter.evil.clean", script],
      ["filter.evil.smudge", script],
      ["filter.evil.process", script],
      ["filter.evil.required", "true"],
      ["diff.evil.textconv", script],
      ["diff.evil.command", script],
      ["merge.evil.driver", script],
      ["diff.external", script],
      ["core.pager", script],
    ]) {
      git(repo, "config", key!, value!);
    }
    const taken = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!taken.ok) throw new Error(taken.message);
    writeFileSync(join(taken.lease.path, "new.txt"), "new\n");
    writeFileSync(join(taken.lease.path, "a.txt"), "changed\n");
    const report = taken.lease.finish(run);
    expect(report).toMatchObject({ kept: true, filesTotal: 2 });
    const listing = listOurWorktrees(repo, agentDir);
    if (!listing.ok) throw new Error(listing.message);
    expect(listing.worktrees.map((worktree) => worktree.taskId)).toEqual([TASK]);
    const merged = mergeTaskWorktree(repo, listing.worktrees[0]!, "Merge it");
    expect(merged).toMatchObject({ kind: "merged", files: ["M a.txt", "A new.txt"] });
    expect(readFileSync(join(repo, "new.txt"), "utf8")).toBe("new\n");
    expect(ran()).toBe("");
  });

  it("turns off only drivers the repository's own files define, and refuses a driver name -c could not say back", () => {
    const local = (key: string, value: string) => `local\0${key}\n${value}\0`;
    expect(
      repositoryOverrides(
        local("filter.lfs.clean", "x") +
          `global\0filter.mine.clean\ny\0` +
          local("gpg.program", "z") +
          local("diff.a.b.textconv", "t"),
      ),
    ).toEqual({
      ok: true,
      overrides: ["filter.lfs.clean=", "filter.lfs.required=false", "gpg.program=gpg", "diff.a.b.textconv="],
    });
    expect(repositoryOverrides(local("filter.a=b.clean", "x"))).toEqual({ ok: false, key: "filter.a=b.clean" });
  });
});

describe("a worktree whose .git leads to a git dir the child made", () => {
  /** The child's own git dir that names the project's as its common dir, so top and common dir look right. */
  function forgeGitDir(path: string): string {
    const script = plant();
    const forged = join(root, "forged");
    mkdirSync(forged);
    writeFileSync(join(forged, "commondir"), `${join(repo, ".git")}\n`);
    writeFileSync(join(forged, "HEAD"), `ref: refs/heads/subagent/${TASK}\n`);
    writeFileSync(join(forged, "gitdir"), `${join(path, ".git")}\n`);
    writeFileSync(join(forged, "config.worktree"), `[core]\n\tfsmonitor = ${script}\n`);
    writeFileSync(join(path, ".git"), `gitdir: ${forged}\n`);
    return forged;
  }

  it("finish reads nothing there, commits nothing and says where it leads; resume refuses it; the check names both git dirs", () => {
    const taken = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!taken.ok) throw new Error(taken.message);
    const path = taken.lease.path;
    const expected = join(repo, ".git", "worktrees", TASK);
    const forged = forgeGitDir(path);
    writeFileSync(join(path, "new.txt"), "new\n");
    expect(checkWorktreeGitDir(repo, path)).toEqual({ ok: false, found: forged, expected });
    const report = taken.lease.finish(run);
    expect(report).toMatchObject({ kept: true, leftAsIs: true, gitDirReplaced: true });
    expect(report.problem).toBe(
      `the worktree's git dir was replaced: ${path}/.git leads to ${forged}, not to ${expected}; it was left as it is at ${path}: nothing there was committed or removed`,
    );
    expect(git(repo, "rev-parse", `subagent/${TASK}`)).toBe(git(repo, "rev-parse", "main"));
    const resumed = resumeWorktree({ cwd: repo, agentDir, taskId: TASK, sessionCwd: path, requested: true });
    expect(resumed).toMatchObject({ ok: false });
    expect(ran()).toBe("");
  });
});
