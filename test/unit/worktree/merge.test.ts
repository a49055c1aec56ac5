import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mergeTaskWorktree, planMerge } from "../../../src/worktree/merge.ts";
import { mergeChallenge, mergeRefusalText } from "../../../src/worktree/merge-texts.ts";
import type { ListedWorktree } from "../../../src/worktree/lease.ts";

const ID = "01912345-6789-7abc-8def-0123456789ab";
let root: string;
let repo: string;
let worktree: ListedWorktree;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pi-subagent-merge-"));
  repo = join(root, "repo");
  mkdirSync(repo);
  git(repo, "init", "--quiet", "-b", "main");
  git(repo, "config", "user.name", "Person");
  git(repo, "config", "user.email", "person@example.invalid");
  writeFileSync(join(repo, "a.txt"), "a\n");
  git(repo, "add", "-A");
  git(repo, "commit", "--quiet", "-m", "start");
  const path = join(root, "worktrees", ID);
  git(repo, "worktree", "add", "--quiet", "-b", `subagent/${ID}`, path);
  worktree = { taskId: ID, path, branch: `subagent/${ID}`, prunable: false };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function commitInWorktree(file: string, text: string): void {
  writeFileSync(join(worktree.path, file), text);
  git(worktree.path, "add", "-A");
  git(worktree.path, "commit", "--quiet", "-m", "task");
}

describe("merging a task's branch", () => {
  it("refuses a branch with nothing new, a dirty working tree (naming the files) and uncommitted work in the worktree", () => {
    expect(planMerge(repo, worktree)).toEqual({ ok: false, refusal: { kind: "nothing", into: "main" } });
    commitInWorktree("b.txt", "b\n");
    writeFileSync(join(repo, "a.txt"), "changed\n");
    const dirty = planMerge(repo, worktree);
    expect(dirty).toEqual({ ok: false, refusal: { kind: "dirty", files: [" M a.txt"] } });
    expect(mergeRefusalText(ID, (dirty as { refusal: { kind: "dirty"; files: string[] } }).refusal)).toBe(
      `Cannot merge subagent/${ID}: the working tree has uncommitted changes (1 file). Commit or stash them first. Nothing was merged.\n-  M a.txt`,
    );
    git(repo, "checkout", "--quiet", "a.txt");
    writeFileSync(join(worktree.path, "c.txt"), "left\n");
    expect(planMerge(repo, worktree)).toEqual({ ok: false, refusal: { kind: "worktree-dirty", files: ["?? c.txt"] } });
    expect(mergeTaskWorktree(repo, worktree, "m")).toEqual({ kind: "worktree-dirty", files: ["?? c.txt"] });
    expect(git(repo, "rev-list", "--count", "HEAD").trim()).toBe("1");
  });

  it("merges with a merge commit and removes the worktree and branch", () => {
    commitInWorktree("b.txt", "b\n");
    expect(planMerge(repo, worktree)).toEqual({
      ok: true,
      plan: { branch: `subagent/${ID}`, into: "main", files: ["A b.txt"], loadedLater: [] },
    });
    const outcome = mergeTaskWorktree(repo, worktree, "Merge the task");
    expect(outcome).toMatchObject({ kind: "merged", into: "main", files: ["A b.txt"], removed: true });
    expect(git(repo, "log", "-1", "--format=%s").trim()).toBe("Merge the task");
    expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b\n");
    expect(git(repo, "branch", "--list", "subagent/*")).toBe("");
  });

  it("aborts a conflicting merge, leaving HEAD and the tree as they were, and names the files", () => {
    commitInWorktree("a.txt", "task\n");
    writeFileSync(join(repo, "a.txt"), "person\n");
    git(repo, "commit", "--quiet", "-am", "person");
    const head = git(repo, "rev-parse", "HEAD");
    expect(mergeTaskWorktree(repo, worktree, "m")).toEqual({
      kind: "conflict",
      branch: `subagent/${ID}`,
      into: "main",
      files: ["a.txt"],
      restored: true,
    });
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("person\n");
  });
});

describe("what a branch brings, checked before the merge", () => {
  it("refuses to overwrite an ignored or untracked file, or a file where the branch needs a folder, and changes nothing", () => {
    writeFileSync(join(repo, ".gitignore"), ".env\n");
    git(repo, "add", ".gitignore");
    git(repo, "commit", "--quiet", "-m", "ignore");
    git(worktree.path, "merge", "--quiet", "main");
    writeFileSync(join(repo, ".env"), "SECRET\n");
    writeFileSync(join(repo, "notes.txt"), "mine\n");
    writeFileSync(join(repo, "conf"), "a file\n");
    writeFileSync(join(worktree.path, ".env"), "child\n");
    writeFileSync(join(worktree.path, "notes.txt"), "child\n");
    mkdirSync(join(worktree.path, "conf"));
    writeFileSync(join(worktree.path, "conf", "x"), "child\n");
    git(worktree.path, "add", "-f", "-A");
    git(worktree.path, "commit", "--quiet", "-m", "task");
    const head = git(repo, "rev-parse", "HEAD");
    expect(mergeTaskWorktree(repo, worktree, "m")).toEqual({
      kind: "would-overwrite",
      files: [".env", "conf", "notes.txt"],
    });
    expect(readFileSync(join(repo, ".env"), "utf8")).toBe("SECRET\n");
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
  });

  it("refuses a link leading out of the repository, and names files loaded later in the plan and the merged outcome", () => {
    symlinkSync("/etc/passwd", join(worktree.path, "pw"));
    git(worktree.path, "add", "-A");
    git(worktree.path, "commit", "--quiet", "-m", "link");
    expect(planMerge(repo, worktree)).toEqual({
      ok: false,
      refusal: { kind: "outside-links", links: ["pw -> /etc/passwd"] },
    });
    git(worktree.path, "rm", "--quiet", "pw");
    symlinkSync("a.txt", join(worktree.path, "inside"));
    mkdirSync(join(worktree.path, ".pi"));
    writeFileSync(join(worktree.path, ".pi", "settings.json"), "{}\n");
    git(worktree.path, "add", "-A");
    git(worktree.path, "commit", "--quiet", "-m", "more");
    const planned = planMerge(repo, worktree);
    expect(planned).toMatchObject({ ok: true, plan: { loadedLater: ["A .pi/settings.json"] } });
    expect(mergeTaskWorktree(repo, worktree, "m")).toMatchObject({
      kind: "merged",
      loadedLater: ["A .pi/settings.json"],
    });
  });
});

describe("the merge's texts", () => {
  it("the first step names the files loaded later before its last line, and link targets lose terminal controls", () => {
    const plan = { branch: `subagent/${ID}`, into: "main", files: ["A .envrc", "A x.txt"], loadedLater: ["A .envrc"] };
    expect(mergeChallenge(plan, ID).split("\n")).toEqual([
      `Merging subagent/${ID} into main would change 2 files:`,
      "- A .envrc",
      "- A x.txt",
      "Look before you run anything here: the merge would bring files that pi, coding agents, git or your shell load or run later (1 file):",
      "- A .envrc",
      `Nothing was done. To merge, call again with action "merge", taskId "${ID}" and confirm: true.`,
    ]);
    expect(mergeRefusalText(ID, { kind: "outside-links", links: ["k -> /x\u001b]0;title\u0007"] })).toBe(
      `Cannot merge subagent/${ID}: it adds symbolic links that point outside the repository (1 link). Look at them first (git show subagent/${ID} -- <path>), and merge by hand if you want them. Nothing was merged.\n- k -> /x`,
    );
  });
});
