/** The worktree lease against a real git repository in a temp folder (git only, no pi). */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorktree, resumeWorktree } from "../../../src/worktree/lease.ts";
import { worktreePath } from "../../../src/worktree/worktree.ts";
import { worktreeSummary } from "../../../src/worktree/finish-decision.ts";

const TASK = "01900000-0000-7000-8000-00000000abcd";
const OTHER = "01900000-0000-7000-8000-00000000ef01";
const run = (status = "succeeded") => ({ taskId: TASK, agent: "worker", task: "Do the thing", status });

let root: string;
let repo: string;
let agentDir: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function initRepo(dir: string, commit = true): void {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "--quiet", "-b", "main");
  if (!commit) return;
  writeFileSync(join(dir, "a.txt"), "a\n");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "b.txt"), "b\n");
  git(dir, "add", "-A");
  git(dir, "-c", "user.name=P", "-c", "user.email=p@example.invalid", "commit", "--quiet", "-m", "start");
}

const branches = () =>
  git(repo, "branch", "--list", "subagent/*", "--format=%(refname:short)").split("\n").filter(Boolean);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "worktree-lease-"));
  repo = join(root, "repo");
  agentDir = join(root, "agent");
  initRepo(repo);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("createWorktree", () => {
  it("checks out HEAD on subagent/<task id> under the agent dir, outside the working tree", () => {
    const taken = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!taken.ok) throw new Error(taken.message);
    const lease = taken.lease;
    expect(lease.path).toBe(join(agentDir, "subagent-worktrees", TASK));
    expect(lease.cwd).toBe(lease.path);
    expect(lease.branch).toBe(`subagent/${TASK}`);
    expect(lease.base).toBe(git(repo, "rev-parse", "HEAD").trim());
    expect(readFileSync(join(lease.path, "a.txt"), "utf8")).toBe("a\n");
    expect(git(lease.path, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(`subagent/${TASK}`);
    expect(lease.notes).toEqual([]);
  });

  it("runs the child in the same subfolder the person works in", () => {
    const taken = createWorktree({ cwd: join(repo, "src"), agentDir, taskId: TASK });
    if (!taken.ok) throw new Error(taken.message);
    expect(taken.lease.cwd).toBe(join(worktreePath(agentDir, TASK), "src"));
  });

  it("notes that uncommitted changes are not in the worktree", () => {
    writeFileSync(join(repo, "a.txt"), "changed\n");
    const taken = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!taken.ok) throw new Error(taken.message);
    expect(taken.lease.notes[0]).toMatch(/uncommitted changes in your working tree are not in it/);
    expect(readFileSync(join(taken.lease.path, "a.txt"), "utf8")).toBe("a\n");
    // The report says it too, so the main agent reads it with the result.
    writeFileSync(join(taken.lease.path, "new.txt"), "n\n");
    expect(taken.lease.finish(run()).notes).toEqual(taken.lease.notes);
  });

  it("refuses a folder outside git, a repository without a commit, and a missing git, creating nothing", () => {
    const plain = join(root, "plain");
    mkdirSync(plain);
    const outside = createWorktree({ cwd: plain, agentDir, taskId: TASK });
    expect(outside).toEqual({ ok: false, message: expect.stringContaining(`${plain} is not inside a git repository`) });

    const empty = join(root, "empty");
    initRepo(empty, false);
    const noCommit = createWorktree({ cwd: empty, agentDir, taskId: TASK });
    expect(noCommit).toEqual({ ok: false, message: expect.stringContaining("has no commit yet") });

    const path = process.env.PATH;
    process.env.PATH = join(root, "no-such-bin");
    try {
      expect(createWorktree({ cwd: repo, agentDir, taskId: TASK })).toEqual({
        ok: false,
        message: expect.stringContaining("git is not installed"),
      });
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(join(agentDir, "subagent-worktrees", TASK))).toBe(false);
    expect(branches()).toEqual([]);
  });

  it("refuses when the branch already exists (git's reason is passed on)", () => {
    git(repo, "branch", `subagent/${TASK}`);
    const taken = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    expect(taken).toEqual({ ok: false, message: expect.stringMatching(/git worktree add failed: .*already exists/) });
  });
});

describe("finishing a worktree", () => {
  function take() {
    const taken = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!taken.ok) throw new Error(taken.message);
    return taken.lease;
  }

  it("removes an unchanged worktree and its branch (ignored build output does not count, and is named)", () => {
    writeFileSync(join(repo, ".gitignore"), "build/\n");
    git(repo, "add", ".gitignore");
    git(repo, "-c", "user.name=P", "-c", "user.email=p@example.invalid", "commit", "--quiet", "-m", "ignore");
    const lease = take();
    mkdirSync(join(lease.path, "build"));
    writeFileSync(join(lease.path, "build", "out.js"), "x");
    const report = lease.finish(run());
    expect(report).toMatchObject({
      kept: false,
      branch: `subagent/${TASK}`,
      ignoredRemoved: ["build/"],
      ignoredRemovedTotal: 1,
    });
    expect(report.problem).toBeUndefined();
    expect(worktreeSummary(report)).toBe(
      `removed (the subagent changed nothing git tracks; ignored files went with it: build/; worktree and branch subagent/${TASK} deleted)`,
    );
    expect(existsSync(lease.path)).toBe(false);
    expect(branches()).toEqual([]);
    expect(git(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  });

  it("commits new, changed and deleted files on the branch, never on the person's, and reports them", () => {
    const lease = take();
    writeFileSync(join(lease.path, "new.txt"), "new\n");
    writeFileSync(join(lease.path, "a.txt"), "a\nmore\n");
    rmSync(join(lease.path, "src", "b.txt"));
    const report = lease.finish(run("cancelled"));
    expect(report.kept).toBe(true);
    expect(report.problem).toBeUndefined();
    expect(report.files).toEqual([
      { status: "M", path: "a.txt" },
      { status: "A", path: "new.txt" },
      { status: "D", path: "src/b.txt" },
    ]);
    expect(report.filesTotal).toBe(3);
    expect(report.diffStat).toMatch(/3 files changed, 2 insertions\(\+\), 1 deletion\(-\)/);
    expect(report.commit).toBe(git(repo, "rev-parse", "--short=12", `subagent/${TASK}`).trim());
    expect(git(repo, "log", "-1", "--format=%s%n%b", `subagent/${TASK}`)).toContain("subagent worker: Do the thing");
    expect(git(repo, "log", "-1", "--format=%b", `subagent/${TASK}`)).toContain(`task ${TASK}, cancelled`);
    // The person's branch and working tree are as they were.
    expect(git(repo, "rev-list", "--count", "main").trim()).toBe("1");
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(existsSync(lease.path)).toBe(true);
    // Once finished, a second call answers the same without touching git again.
    expect(lease.finish(run())).toBe(report);
  });

  it("keeps commits the child made itself, with a clean worktree", () => {
    const lease = take();
    writeFileSync(join(lease.path, "c.txt"), "c\n");
    git(lease.path, "add", "c.txt");
    git(
      lease.path,
      "-c",
      "user.name=C",
      "-c",
      "user.email=c@example.invalid",
      "commit",
      "--quiet",
      "-m",
      "child commit",
    );
    const report = lease.finish(run());
    expect(report).toMatchObject({ kept: true, filesTotal: 1, files: [{ status: "A", path: "c.txt" }] });
    expect(git(repo, "log", "-1", "--format=%s", `subagent/${TASK}`).trim()).toBe("child commit");
  });

  it("discard removes the worktree and branch of a dispatch that never ran", () => {
    const lease = take();
    lease.discard();
    expect(existsSync(lease.path)).toBe(false);
    expect(branches()).toEqual([]);
  });
});

describe("resumeWorktree", () => {
  it("does nothing for a session that ran outside a worktree, and refuses when a worktree is asked for", () => {
    expect(resumeWorktree({ cwd: repo, agentDir, taskId: TASK, sessionCwd: repo, requested: false })).toBeUndefined();
    expect(resumeWorktree({ cwd: repo, agentDir, taskId: TASK, sessionCwd: repo, requested: true })).toEqual({
      ok: false,
      message: expect.stringContaining("did not run in a worktree"),
    });
  });

  it("takes a kept worktree again with its recorded base, and re-creates a removed one from its branch", () => {
    const first = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!first.ok) throw new Error(first.message);
    writeFileSync(join(first.lease.path, "one.txt"), "1\n");
    const kept = first.lease.finish(run());
    expect(kept.kept).toBe(true);

    const again = resumeWorktree({
      cwd: repo,
      agentDir,
      taskId: TASK,
      sessionCwd: first.lease.path,
      recordedBase: kept.base,
      requested: false,
    });
    if (!again?.ok) throw new Error("not taken");
    expect(again.lease.base).toBe(kept.base);
    // Nothing new this time: the branch still holds the first run's change, so it is kept.
    expect(again.lease.finish(run())).toMatchObject({ kept: true, filesTotal: 1 });

    // The folder removed by hand: re-created from the branch, which still holds one.txt.
    git(repo, "worktree", "remove", "--force", first.lease.path);
    const recreated = resumeWorktree({
      cwd: repo,
      agentDir,
      taskId: TASK,
      sessionCwd: first.lease.path,
      requested: false,
    });
    if (!recreated?.ok) throw new Error("not re-created");
    expect(readFileSync(join(recreated.lease.path, "one.txt"), "utf8")).toBe("1\n");
    expect(recreated.lease.base).toBe(kept.base);
  });

  it("re-creates a removed worktree (no branch left) from HEAD for a task that changed nothing", () => {
    const first = createWorktree({ cwd: repo, agentDir, taskId: OTHER });
    if (!first.ok) throw new Error(first.message);
    expect(first.lease.finish({ ...run(), taskId: OTHER }).kept).toBe(false);
    const again = resumeWorktree({
      cwd: repo,
      agentDir,
      taskId: OTHER,
      sessionCwd: first.lease.path,
      requested: false,
    });
    if (!again?.ok) throw new Error("not re-created");
    expect(existsSync(join(again.lease.path, "a.txt"))).toBe(true);
    expect(again.lease.base).toBe(git(repo, "rev-parse", "HEAD").trim());
  });
});

describe("resumeWorktree from another project", () => {
  it("works on the repository the worktree came from, not the one pi now runs in", () => {
    const first = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!first.ok) throw new Error(first.message);
    writeFileSync(join(first.lease.path, "one.txt"), "1\n");
    const kept = first.lease.finish(run());
    git(repo, "worktree", "remove", "--force", first.lease.path);

    const elsewhere = join(root, "other");
    initRepo(elsewhere);
    const again = resumeWorktree({
      cwd: elsewhere,
      agentDir,
      taskId: TASK,
      sessionCwd: first.lease.path,
      recordedBase: kept.base,
      recordedRepoRoot: kept.repoRoot,
      requested: false,
    });
    if (!again?.ok) throw new Error("not re-created");
    expect(again.lease.repoRoot).toBe(repo);
    expect(readFileSync(join(again.lease.path, "one.txt"), "utf8")).toBe("1\n");
    expect(git(elsewhere, "branch", "--list", "subagent/*")).toBe("");
  });
});

describe("what finishing and discarding never lose", () => {
  function take() {
    const taken = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!taken.ok) throw new Error(taken.message);
    return taken.lease;
  }
  const recordedRun = (path: string) => ({ cwd: repo, agentDir, taskId: TASK, sessionCwd: path, requested: false });

  it("a discarded resume leaves the kept worktree, its uncommitted work and its branch alone", () => {
    const first = take();
    writeFileSync(join(first.path, "one.txt"), "1\n");
    const kept = first.finish(run());
    // A later run (its pi died hard) left work uncommitted; then a resume fails before its child starts.
    writeFileSync(join(first.path, "unsaved.txt"), "unsaved\n");
    const again = resumeWorktree({ ...recordedRun(first.path), recordedBase: kept.base });
    if (!again?.ok) throw new Error("not taken");
    again.lease.discard();
    expect(readFileSync(join(first.path, "unsaved.txt"), "utf8")).toBe("unsaved\n");
    expect(branches()).toEqual([`subagent/${TASK}`]);

    // Re-created from the surviving branch, then discarded: the folder goes, the branch with its commit stays.
    git(repo, "worktree", "remove", "--force", first.path);
    const recreated = resumeWorktree({ ...recordedRun(first.path), recordedBase: kept.base });
    if (!recreated?.ok) throw new Error("not re-created");
    recreated.lease.discard();
    expect(existsSync(first.path)).toBe(false);
    expect(git(repo, "show", `subagent/${TASK}:one.txt`)).toBe("1\n");
  });

  it("never deletes a branch whose commits are on no other branch, whatever base the record claims", () => {
    const first = take();
    writeFileSync(join(first.path, "one.txt"), "1\n");
    first.finish(run());
    const tip = git(repo, "rev-parse", `subagent/${TASK}`).trim();
    // A record whose base was changed to the branch's own tip: "nothing changed" by that base.
    const again = resumeWorktree({ ...recordedRun(first.path), recordedBase: tip });
    if (!again?.ok) throw new Error("not taken");
    const report = again.lease.finish(run());
    expect(report).toMatchObject({
      kept: true,
      problem: `its commit ${tip.slice(0, 12)} is on no other branch or tag, so the branch is kept`,
    });
    expect(git(repo, "rev-parse", `subagent/${TASK}`).trim()).toBe(tip);
    expect(existsSync(first.path)).toBe(true);
  });

  it("commits nothing anywhere when the worktree's .git link is gone and an enclosing repository would answer", () => {
    // The agent dir inside a repository of its own (a dotfiles repository holding ~/.pi, say).
    git(root, "init", "--quiet", "-b", "dots");
    git(
      root,
      "-c",
      "user.name=P",
      "-c",
      "user.email=p@example.invalid",
      "commit",
      "--quiet",
      "--allow-empty",
      "-m",
      "dots",
    );
    const lease = take();
    rmSync(join(lease.path, ".git"));
    writeFileSync(join(lease.path, "new.txt"), "new\n");
    const report = lease.finish(run());
    expect(report).toMatchObject({ kept: true, leftAsIs: true });
    expect(report.problem).toContain("git no longer sees the folder as this worktree");
    expect(git(root, "rev-list", "--count", "dots").trim()).toBe("1");
    expect(git(root, "diff", "--cached", "--name-only")).toBe("");
    expect(readFileSync(join(lease.path, "new.txt"), "utf8")).toBe("new\n");
  });

  it("commits nothing while a merge is half done in the worktree", () => {
    const lease = take();
    git(repo, "branch", "other");
    const otherTree = join(root, "other-tree");
    git(repo, "worktree", "add", "--quiet", otherTree, "other");
    writeFileSync(join(otherTree, "a.txt"), "theirs\n");
    git(otherTree, "-c", "user.name=P", "-c", "user.email=p@example.invalid", "commit", "--quiet", "-am", "theirs");
    writeFileSync(join(lease.path, "a.txt"), "ours\n");
    git(lease.path, "-c", "user.name=C", "-c", "user.email=c@example.invalid", "commit", "--quiet", "-am", "ours");
    const ours = git(repo, "rev-parse", `subagent/${TASK}`).trim();
    try {
      git(lease.path, "-c", "user.name=C", "-c", "user.email=c@example.invalid", "merge", "--quiet", "other");
    } catch {
      // the conflict is the point
    }
    const report = lease.finish(run());
    expect(report).toMatchObject({
      kept: true,
      leftAsIs: true,
      problem: "a merge is in progress in the worktree; nothing was committed",
      uncommitted: 1,
    });
    expect(git(repo, "rev-parse", `subagent/${TASK}`).trim()).toBe(ours);
    expect(readFileSync(join(lease.path, "a.txt"), "utf8")).toContain("<<<<<<<");
  });
});

describe("resuming into a task folder that is no longer its worktree", () => {
  it("refuses a folder replaced by a link to your working tree, or unlinked from git, and changes nothing", () => {
    const first = createWorktree({ cwd: repo, agentDir, taskId: TASK });
    if (!first.ok) throw new Error(first.message);
    const path = first.lease.path;
    git(repo, "worktree", "remove", "--force", path);
    symlinkSync(repo, path);
    const options = { cwd: repo, agentDir, taskId: TASK, sessionCwd: path, requested: false };
    const linked = resumeWorktree(options);
    expect(linked).toEqual({
      ok: false,
      message: expect.stringContaining(`${path} is no longer a git worktree of ${repo}`),
    });
    expect(git(repo, "status", "--porcelain")).toBe("");

    rmSync(path);
    mkdirSync(path);
    writeFileSync(join(path, "keep.txt"), "mine\n");
    expect(resumeWorktree(options)).toEqual({
      ok: false,
      message: expect.stringContaining("Nothing was started and nothing there was changed"),
    });
    expect(readFileSync(join(path, "keep.txt"), "utf8")).toBe("mine\n");
  });
});
