/**
 * Taking a worktree for a task, the session's working folder, and the list of what exists.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
} from "node:fs";
import { join, relative, resolve, basename } from "node:path";
import { runGit, checkWorktreeGitDir } from "./git.ts";
import { finishWorktree, type FinishedRun, type WorktreeSite } from "./finish.ts";
import {
  branchName,
  isInside,
  worktreePath,
  worktreesRoot,
  gitFailedMessage,
  gitMissingMessage,
  noCommitMessage,
  notARepositoryMessage,
  notAWorkingTreeMessage,
  notTheTaskWorktreeMessage,
  resumeOutsideWorktreeMessage,
  uncommittedChangesNote,
  type WorktreeReport,
} from "./worktree.ts";
import { isTaskId } from "../shared/nesting.ts";

/*
 * Taking a worktree for a task before its child starts: a new one from the project's HEAD on the branch
 * `subagent/<task id>`, or, when a worktree task is resumed, the one it ran in (re-created from its branch or
 * from HEAD when it was removed). Every refusal comes before anything exists; the lease then owns the worktree:
 * `finish` once the task ended, `discard` when the dispatch failed before the child started.
 */
/**
 * A worktree site plus:
 * - `cwd`: where the child runs: the worktree, or the same subfolder of it the person's pi runs in.
 * - `notes`: things worth telling (uncommitted changes that the worktree does not have).
 * - `finish`: commits or removes, once; later calls return the first report.
 * - `discard`: the dispatch failed before the child ran: removes what taking the lease made (never a kept worktree or branch).
 */
export type WorktreeLease = WorktreeSite & {
  cwd: string;
  notes: string[];
  finish(run: FinishedRun): WorktreeReport;
  discard(): void;
};

export type LeaseResult = { ok: true; lease: WorktreeLease } | { ok: false; message: string };

interface Repository {
  root: string;
  /** The subfolder of the repository pi runs in (`src/`), or "". */
  prefix: string;
  head: string;
}

function findRepository(cwd: string): { ok: true; repo: Repository } | { ok: false; message: string } {
  const inside = runGit(cwd, ["rev-parse", "--is-inside-work-tree"]);
  if (!inside.ok) return { ok: false, message: inside.missing ? gitMissingMessage() : notARepositoryMessage(cwd) };
  if (inside.stdout.trim() !== "true") return { ok: false, message: notAWorkingTreeMessage(cwd) };
  const where = runGit(cwd, ["rev-parse", "--show-toplevel", "--show-prefix"]);
  if (!where.ok) return { ok: false, message: gitFailedMessage("git rev-parse", where.message) };
  const [root = "", prefix = ""] = where.stdout.split("\n");
  const head = runGit(cwd, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  if (!head.ok || !head.stdout.trim()) return { ok: false, message: noCommitMessage(root) };
  return { ok: true, repo: { root, prefix: prefix.replace(/\/$/, ""), head: head.stdout.trim() } };
}

/**
 * What taking the lease made, so a discard removes only that: a new worktree on a new branch, a new worktree
 * of a branch that already held the task's commits, or nothing (a kept worktree taken again, which may hold
 * work of an earlier run that was never committed).
 */
type Made = "worktree and branch" | "worktree" | "nothing";

function makeLease(site: WorktreeSite, cwd: string, notes: string[], made: Made): WorktreeLease {
  let report: WorktreeReport | undefined;
  return {
    ...site,
    cwd,
    notes,
    finish(run) {
      report ??= notes.length > 0 ? { ...finishWorktree(site, run), notes: [...notes] } : finishWorktree(site, run);
      return report;
    },
    discard() {
      if (report) return;
      report = { ...site, kept: made !== "worktree and branch" };
      if (made === "nothing") return;
      // Just checked out and never run in: nothing of anyone's is in the folder.
      runGit(site.repoRoot, ["worktree", "remove", "--force", site.path]);
      runGit(site.repoRoot, ["worktree", "prune"]);
      if (made === "worktree and branch") runGit(site.repoRoot, ["branch", "-D", site.branch]);
    },
  };
}

/** The child's folder inside the worktree: the same subfolder the person works in (created when untracked). */
function childCwd(path: string, prefix: string): string {
  if (!prefix) return path;
  const folder = join(path, prefix);
  mkdirSync(folder, { recursive: true });
  return folder;
}

export interface NewWorktreeOptions {
  /** The person's working directory (inside the project). */
  cwd: string;
  agentDir: string;
  taskId: string;
}

/** A new worktree of HEAD for a new task. */
export function createWorktree(options: NewWorktreeOptions): LeaseResult {
  const found = findRepository(options.cwd);
  if (!found.ok) return found;
  const { repo } = found;
  const path = worktreePath(options.agentDir, options.taskId);
  const branch = branchName(options.taskId);
  mkdirSync(worktreesRoot(options.agentDir), { recursive: true, mode: 0o700 });
  const added = runGit(repo.root, ["worktree", "add", "--quiet", "-b", branch, path, repo.head]);
  if (!added.ok) return { ok: false, message: gitFailedMessage("git worktree add", added.message) };
  const notes: string[] = [];
  const dirty = runGit(repo.root, ["status", "--porcelain", "--untracked-files=no"]);
  if (dirty.ok && dirty.stdout.trim()) notes.push(uncommittedChangesNote(repo.head));
  const site: WorktreeSite = { branch, path, base: repo.head, repoRoot: repo.root };
  try {
    return { ok: true, lease: makeLease(site, childCwd(path, repo.prefix), notes, "worktree and branch") };
  } catch (error) {
    makeLease(site, path, notes, "worktree and branch").discard();
    return {
      ok: false,
      message: gitFailedMessage(
        "creating the subfolder in the worktree",
        error instanceof Error ? error.message : String(error),
      ),
    };
  }
}

/**
 * The options of a new worktree plus:
 * - `sessionCwd`: the cwd in the resumed session's header: where pi will run it.
 * - `recordedBase`: the base of the task's last run, from its record, if known.
 * - `recordedRepoRoot`: the repository the task's worktree belongs to, from its record, if known (pi may run
 *  elsewhere now).
 * - `requested`: true when the call asked for isolation "worktree".
 */
export type ResumeOptions = NewWorktreeOptions & {
  sessionCwd: string;
  recordedBase?: string;
  recordedRepoRoot?: string;
  requested: boolean;
};

/**
 * A resumed task runs where its session started (pi takes the folder from the session file). If that was
 * one of our worktrees, the worktree is taken again: as it is when it still exists, else re-created, from its
 * branch if that survived, else from the project's HEAD. A session that started elsewhere cannot be moved into
 * a worktree: asked for one, the resume is refused; otherwise it runs as before (undefined).
 */
export function resumeWorktree(options: ResumeOptions): LeaseResult | undefined {
  const path = worktreePath(options.agentDir, options.taskId);
  if (!isInside(path, options.sessionCwd)) {
    return options.requested ? { ok: false, message: resumeOutsideWorktreeMessage(options.taskId) } : undefined;
  }
  // The worktree belongs to the repository it was made from, wherever the main agent works now.
  const recorded = options.recordedRepoRoot;
  const found = findRepository(recorded && existsSync(recorded) ? recorded : options.cwd);
  if (!found.ok) return found;
  const { repo } = found;
  const branch = branchName(options.taskId);
  const prefix = relative(path, options.sessionCwd);
  if (existsSync(path)) {
    if (!isWorktreeOf(path, repo)) return { ok: false, message: notTheTaskWorktreeMessage(path, repo.root) };
    const site: WorktreeSite = {
      branch,
      path,
      base: options.recordedBase ?? mergeBase(repo, branch),
      repoRoot: repo.root,
    };
    return { ok: true, lease: makeLease(site, childCwd(path, prefix), [], "nothing") };
  }
  runGit(repo.root, ["worktree", "prune"]);
  const branchExists = runGit(repo.root, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`]).ok;
  mkdirSync(worktreesRoot(options.agentDir), { recursive: true, mode: 0o700 });
  const added = branchExists
    ? runGit(repo.root, ["worktree", "add", "--quiet", path, branch])
    : runGit(repo.root, ["worktree", "add", "--quiet", "-b", branch, path, repo.head]);
  if (!added.ok) return { ok: false, message: gitFailedMessage("git worktree add", added.message) };
  const base = branchExists ? (options.recordedBase ?? mergeBase(repo, branch)) : repo.head;
  const site: WorktreeSite = { branch, path, base, repoRoot: repo.root };
  return {
    ok: true,
    lease: makeLease(site, childCwd(path, prefix), [], branchExists ? "worktree" : "worktree and branch"),
  };
}

function realFolder(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The task's folder is still a worktree of this repository: a real folder (not a link to, say, your working
 * tree) that git sees as the top of a working tree sharing the repository's git directory.
 */
function isWorktreeOf(path: string, repo: Repository): boolean {
  try {
    if (!lstatSync(path).isDirectory()) return false;
  } catch {
    return false;
  }
  const there = runGit(path, ["rev-parse", "--show-toplevel", "--git-common-dir"]);
  const here = runGit(repo.root, ["rev-parse", "--git-common-dir"]);
  if (!there.ok || !here.ok) return false;
  const [top = "", common = ""] = there.stdout.split("\n");
  const sameTop = realFolder(top) !== undefined && realFolder(top) === realFolder(path);
  const sameRepository =
    realFolder(resolve(path, common)) !== undefined &&
    realFolder(resolve(path, common)) === realFolder(resolve(repo.root, here.stdout.trim()));
  // The same top and common dir can be faked by a git dir of the child's own that names the project's as its common dir.
  return sameTop && sameRepository && checkWorktreeGitDir(repo.root, path).ok;
}

/** Where a kept branch left the person's line of work (when no record says). */
function mergeBase(repo: Repository, branch: string): string {
  const base = runGit(repo.root, ["merge-base", repo.head, branch]);
  return base.ok && base.stdout.trim() ? base.stdout.trim() : repo.head;
}

/* The folder a session runs in, from its header line (pi runs a resumed session where it started). */
const HEADER_MAX_BYTES = 64 * 1024;

export function sessionHeaderCwd(sessionFile: string): string | undefined {
  let fd: number | undefined;
  try {
    // Our own state file: never through a link, never blocking on a FIFO (src/shared/safe-write.ts's rules).
    fd = openSync(sessionFile, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(HEADER_MAX_BYTES);
    const read = readSync(fd, buffer, 0, HEADER_MAX_BYTES, 0);
    const firstLine = buffer.subarray(0, read).toString("utf8").split("\n", 1)[0] ?? "";
    const header = JSON.parse(firstLine) as { type?: unknown; cwd?: unknown };
    return header.type === "session" && typeof header.cwd === "string" ? header.cwd : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/*
 * The worktrees of ours in a repository (those under `<agent dir>/subagent-worktrees/`), as
 * `git worktree list --porcelain` reports them, and their removal. Used by `/subagent-worktrees`.
 */
export interface ListedWorktree {
  taskId: string;
  path: string;
  /** `subagent/<task id>`, or undefined when the worktree's HEAD is detached or on another branch. */
  branch?: string;
  /**
   * Where the worktree's HEAD is when it is not on `subagent/<task id>`: `branch <name>` (the subagent
   * switched it) or `a detached HEAD at <sha12>`.
   */
  leftOn?: string;
  head?: string;
  /** The folder is gone but git still has it registered (`git worktree prune` forgets it). */
  prunable: boolean;
}

/** Parses `git worktree list --porcelain` and keeps the entries under our worktrees folder. Pure. */
export function parseWorktreeList(porcelain: string, root: string): ListedWorktree[] {
  const listed: ListedWorktree[] = [];
  for (const block of porcelain.split(/\n\n+/)) {
    let path: string | undefined;
    let branch: string | undefined;
    let head: string | undefined;
    let detached = false;
    let prunable = false;
    for (const line of block.split("\n")) {
      if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
      else if (line.startsWith("branch refs/heads/")) branch = line.slice("branch refs/heads/".length);
      else if (line.startsWith("HEAD ")) head = line.slice("HEAD ".length);
      else if (line === "detached") detached = true;
      else if (line === "prunable" || line.startsWith("prunable ")) prunable = true;
    }
    if (!path || !isInside(root, path) || path === root) continue;
    const taskId = basename(path);
    if (!isTaskId(taskId)) continue;
    const own = branchName(taskId);
    const entry: ListedWorktree = { taskId, path, branch: branch === own ? own : undefined, head, prunable };
    if (branch !== undefined && branch !== own) entry.leftOn = `branch ${branch}`;
    else if (detached && head) entry.leftOn = `a detached HEAD at ${head.slice(0, 12)}`;
    listed.push(entry);
  }
  return listed;
}

export type WorktreeListing = { ok: true; worktrees: ListedWorktree[] } | { ok: false; message: string };

export function listOurWorktrees(cwd: string, agentDir: string): WorktreeListing {
  const listed = runGit(cwd, ["worktree", "list", "--porcelain"]);
  if (!listed.ok) {
    return {
      ok: false,
      message: listed.missing
        ? "git is not installed (no git on PATH)."
        : `Not in a git repository (${cwd}): there are no subagent worktrees to list here.`,
    };
  }
  return { ok: true, worktrees: parseWorktreeList(listed.stdout, worktreesRoot(agentDir)) };
}

/** The task's own branch, `subagent/<task id>`, when it exists (also when the worktree's HEAD left it). */
export function taskBranchOf(cwd: string, worktree: ListedWorktree): string | undefined {
  const own = branchName(worktree.taskId);
  return runGit(cwd, ["rev-parse", "--verify", "-q", `refs/heads/${own}`]).ok ? own : undefined;
}

export type Removal = { ok: true; deletedBranch?: string } | { ok: false; problem: string };

/**
 * Removes a worktree and the task's own branch, `subagent/<task id>`; never another branch, even when the
 * subagent switched the worktree to it.
 */
export function removeListedWorktree(cwd: string, worktree: ListedWorktree): Removal {
  const removed = runGit(cwd, ["worktree", "remove", "--force", worktree.path]);
  runGit(cwd, ["worktree", "prune"]);
  if (!removed.ok && !worktree.prunable)
    return { ok: false, problem: `git worktree remove failed: ${removed.message}` };
  const branch = taskBranchOf(cwd, worktree);
  if (!branch) return { ok: true };
  const deleted = runGit(cwd, ["branch", "-D", branch]);
  return deleted.ok
    ? { ok: true, deletedBranch: branch }
    : { ok: false, problem: `git branch -D ${branch} failed: ${deleted.message}` };
}
