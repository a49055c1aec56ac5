/**
 * Ending a task's worktree, whatever ended the task (done, failed, cancelled, timed out, pi exiting): a
 * worktree where nothing changed is removed with its branch; otherwise the child's changes are committed on
 * the subagent branch (never on the person's), and the worktree and branch are kept for review. When git fails
 * on the way, everything is kept and the problem is reported: nothing the child did is ever thrown away.
 */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { oneLine } from "../shared/text.ts";
import { decideFinish, type WorktreeState } from "./finish-decision.ts";
import { runGit, checkWorktreeGitDir, gitDirReplacedText } from "./git.ts";
import type { ChangedFile, WorktreeReport } from "./worktree.ts";

/** Files listed by name in a report; the diff stat and the total still cover all of them. */
const MAX_LISTED_FILES = 50;
/** Lines of `git diff --stat` kept (the summary line is always kept). */
const MAX_DIFF_STAT_LINES = 40;

export interface WorktreeSite {
  branch: string;
  path: string;
  base: string;
  repoRoot: string;
}

export interface FinishedRun {
  taskId: string;
  agent: string;
  task: string;
  status: string;
}

/** The subagent commit's message: a subject that names the agent and the task, the task in the body. */
export function commitMessage(run: FinishedRun): string {
  const subject = `subagent ${run.agent}: ${oneLine(run.task, 60)}`;
  return `${subject}\n\nWork of the pi subagent ${run.agent} (task ${run.taskId}, ${run.status}).\n\nTask:\n${run.task.slice(0, 4000)}\n`;
}

/** Parses `git diff --name-status -z` output: status, path (and for renames and copies a second path). */
export function parseNameStatus(output: string): ChangedFile[] {
  const fields = output.split("\0");
  const files: ChangedFile[] = [];
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++] ?? "";
    if (!status) continue;
    const first = fields[i++] ?? "";
    if (status.startsWith("R") || status.startsWith("C")) {
      const second = fields[i++] ?? "";
      files.push({ status, path: `${first} -> ${second}` });
    } else files.push({ status, path: first });
  }
  return files;
}

/** Keeps the first lines of a diff stat and always its summary line. */
export function boundDiffStat(stat: string, maxLines: number = MAX_DIFF_STAT_LINES): string {
  const lines = stat.replace(/\s+$/, "").split("\n");
  if (lines.length <= maxLines) return lines.join("\n");
  const summary = lines[lines.length - 1] ?? "";
  return [...lines.slice(0, maxLines - 1), ` ... (${lines.length - maxLines} more files)`, summary].join("\n");
}

/** Commits as the person when git knows who they are; otherwise under a name that says what made the commit. */
function identityEnvironment(cwd: string): Record<string, string> {
  const name = runGit(cwd, ["config", "user.name"]);
  const email = runGit(cwd, ["config", "user.email"]);
  const env: Record<string, string> = {};
  if (!name.ok || !name.stdout.trim())
    Object.assign(env, { GIT_AUTHOR_NAME: "pi subagent", GIT_COMMITTER_NAME: "pi subagent" });
  if (!email.ok || !email.stdout.trim())
    Object.assign(env, { GIT_AUTHOR_EMAIL: "subagent@pi.invalid", GIT_COMMITTER_EMAIL: "subagent@pi.invalid" });
  return env;
}

function removeWorktree(site: WorktreeSite): string | undefined {
  // --force: ignored files (build output) may be there; everything else was ruled out just before.
  const removed = runGit(site.repoRoot, ["worktree", "remove", "--force", site.path]);
  if (!removed.ok && existsSync(site.path)) return `git worktree remove failed: ${removed.message}`;
  runGit(site.repoRoot, ["worktree", "prune"]);
  const deleted = runGit(site.repoRoot, ["branch", "-D", site.branch]);
  if (!deleted.ok) return `git branch -D ${site.branch} failed: ${deleted.message}`;
  return undefined;
}

function changesReport(site: WorktreeSite, report: WorktreeReport): WorktreeReport {
  const range = [site.base, site.branch];
  const names = runGit(site.repoRoot, [
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--name-status",
    "-z",
    "-M",
    ...range,
    "--",
  ]);
  if (names.ok) {
    const files = parseNameStatus(names.stdout);
    report.filesTotal = files.length;
    report.files = files.slice(0, MAX_LISTED_FILES);
  }
  const stat = runGit(site.repoRoot, [
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--stat=100",
    "-M",
    ...range,
    "--",
  ]);
  if (stat.ok && stat.stdout.trim()) report.diffStat = boundDiffStat(stat.stdout);
  const tip = runGit(site.repoRoot, ["rev-parse", "--short=12", site.branch]);
  if (tip.ok) report.commit = tip.stdout.trim();
  return report;
}

/** Ignored entries named in the report of a removed worktree. */
const MAX_NAMED_IGNORED = 10;

/** What git ignores in the worktree (a folder of ignored files counts once, as `dist/`): it goes with the worktree. */
function ignoredEntries(path: string): string[] {
  const listed = runGit(path, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]);
  return listed.ok ? listed.stdout.split("\0").filter(Boolean) : [];
}

/** Counts the entries of `git status --porcelain=v1 -z` (a rename or copy carries a second path). */
export function countStatusEntries(output: string): number {
  const fields = output.split("\0");
  let count = 0;
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] ?? "";
    if (entry.length < 4) continue;
    count++;
    if (entry[0] === "R" || entry[0] === "C") i++;
  }
  return count;
}

/** The paths of gitlinks (submodule entries, mode 160000) in `git ls-files -s -z` output. */
export function gitlinkPaths(output: string): string[] {
  const paths: string[] = [];
  for (const entry of output.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab > 0 && entry.startsWith("160000 ")) paths.push(entry.slice(tab + 1));
  }
  return paths;
}

/** The most `git ls-files -s` may print (about 80 bytes a file): enough for a very large repository. */
const INDEX_LISTING_MAX_BYTES = 256 * 1024 * 1024;

/** Submodule folders that hold anything: git status does not look inside an uninitialised one. */
function filesInSubmoduleFolders(path: string): string[] | undefined {
  const listed = runGit(path, ["ls-files", "-s", "-z"], {}, INDEX_LISTING_MAX_BYTES);
  if (!listed.ok) return undefined;
  return gitlinkPaths(listed.stdout).filter((link) => {
    try {
      return readdirSync(join(path, link)).length > 0;
    } catch {
      return false; // no folder there: nothing to lose
    }
  });
}

/** A git operation the subagent left half done, read from the files git keeps while it runs. */
const OPERATION_MARKERS: ReadonlyArray<[string, string]> = [
  ["rebase-merge", "a rebase"],
  ["rebase-apply", "a rebase or git am"],
  ["MERGE_HEAD", "a merge"],
  ["CHERRY_PICK_HEAD", "a cherry-pick"],
  ["REVERT_HEAD", "a revert"],
  ["BISECT_LOG", "a bisect"],
];

function operationInProgress(path: string): string | undefined {
  const where = runGit(path, ["rev-parse", ...OPERATION_MARKERS.flatMap(([marker]) => ["--git-path", marker])]);
  if (!where.ok) return "an unknown git state (git rev-parse --git-path failed)";
  const paths = where.stdout.split("\n");
  const index = OPERATION_MARKERS.findIndex((_, i) => paths[i] !== undefined && existsSync(resolve(path, paths[i]!)));
  return index < 0 ? undefined : OPERATION_MARKERS[index]![1];
}

function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** The branch's tip is on another branch, a tag or the person's HEAD: deleting the branch loses no commit. */
function tipHeldElsewhere(site: WorktreeSite, tip: string): boolean {
  const refs = runGit(site.repoRoot, [
    "for-each-ref",
    "--contains",
    tip,
    "--format=%(refname)",
    "refs/heads",
    "refs/tags",
  ]);
  if (refs.ok && refs.stdout.split("\n").some((ref) => ref && ref !== `refs/heads/${site.branch}`)) return true;
  return runGit(site.repoRoot, ["merge-base", "--is-ancestor", tip, "HEAD"]).ok;
}

type StateRead = { ok: true; state: WorktreeState } | { ok: false; problem: string } | { ok: false; replaced: string };

function readState(site: WorktreeSite): StateRead {
  // Nothing reads the worktree's index before its git dir is known to be the one git made for it.
  const gitDir = checkWorktreeGitDir(site.repoRoot, site.path);
  if (!gitDir.ok && !gitDir.gone)
    return {
      ok: false,
      replaced: `${gitDirReplacedText(site.path, gitDir)}; it was left as it is at ${site.path}: nothing there was committed or removed`,
    };
  const top = runGit(site.path, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return { ok: false, problem: `git rev-parse failed: ${top.message}` };
  const isWorktreeTop = sameFolder(top.stdout.trim(), site.path);
  const head = runGit(site.path, ["rev-parse", "--verify", "-q", "HEAD"]);
  if (!head.ok) return { ok: false, problem: `git rev-parse HEAD failed: ${head.message}` };
  const ref = runGit(site.path, ["symbolic-ref", "-q", "HEAD"]);
  const base = { isWorktreeTop, head: head.stdout.trim(), headRef: ref.ok ? ref.stdout.trim() : undefined };
  // Outside its own worktree git would answer for another repository: nothing more is asked there.
  if (!isWorktreeTop)
    return { ok: true, state: { ...base, changedEntries: 0, filesInSubmoduleFolders: [], tipHeldElsewhere: false } };
  const status = runGit(site.path, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  if (!status.ok) return { ok: false, problem: `git status failed: ${status.message}` };
  const held = filesInSubmoduleFolders(site.path);
  if (held === undefined)
    return { ok: false, problem: "git ls-files failed, so the submodule folders could not be checked" };
  const changedEntries = countStatusEntries(status.stdout);
  const state: WorktreeState = {
    ...base,
    operation: operationInProgress(site.path),
    changedEntries,
    filesInSubmoduleFolders: held,
    tipHeldElsewhere: changedEntries === 0 && base.head === site.base && tipHeldElsewhere(site, base.head),
  };
  return { ok: true, state };
}

/** How many files are left uncommitted in the worktree, counted again after a failed commit. */
function uncommittedNow(path: string): number | undefined {
  const status = runGit(path, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  return status.ok ? countStatusEntries(status.stdout) : undefined;
}

export function finishWorktree(site: WorktreeSite, run: FinishedRun): WorktreeReport {
  const report: WorktreeReport = { ...site, kept: true };
  if (!existsSync(site.path)) {
    // Someone removed the folder by hand: forget its registration; the branch (if any) still holds commits.
    runGit(site.repoRoot, ["worktree", "prune"]);
    const tip = runGit(site.repoRoot, ["rev-parse", "--verify", "-q", `refs/heads/${site.branch}`]);
    if (!tip.ok) return { ...report, kept: false, problem: "the worktree folder and its branch were already gone" };
    report.problem = "the worktree folder was already gone; the branch is kept";
    return changesReport(site, report);
  }
  const read = readState(site);
  if (!read.ok && "replaced" in read)
    return { ...report, leftAsIs: true, gitDirReplaced: true, problem: read.replaced };
  if (!read.ok) return { ...report, problem: read.problem };
  const decision = decideFinish(read.state, site);
  if (decision.action === "remove") {
    const ignored = ignoredEntries(site.path);
    const problem = removeWorktree(site);
    if (problem) return { ...report, problem };
    const removed: WorktreeReport = { ...report, kept: false };
    if (ignored.length > 0)
      Object.assign(removed, {
        ignoredRemoved: ignored.slice(0, MAX_NAMED_IGNORED),
        ignoredRemovedTotal: ignored.length,
      });
    return removed;
  }
  if (decision.action === "leave") {
    const left: WorktreeReport = { ...report, leftAsIs: true, problem: decision.problem };
    if (decision.leftOn) left.leftOn = decision.leftOn;
    if (read.state.changedEntries > 0) left.uncommitted = read.state.changedEntries;
    return left;
  }
  const kept: WorktreeReport = decision.problem ? { ...report, problem: decision.problem } : report;
  if (decision.commit) {
    const failed = commitChanges(site, run, read.state.head);
    if (failed) {
      const uncommitted = uncommittedNow(site.path) ?? read.state.changedEntries;
      return changesReport(site, {
        ...kept,
        uncommitted,
        problem: [failed, decision.problem].filter(Boolean).join("; "),
      });
    }
  }
  return changesReport(site, kept);
}

/**
 * Stages everything and commits it onto the task's branch; returns what failed, or undefined. Built from
 * git's plumbing so the commit can only ever land on `refs/heads/<task branch>`, and only if that branch is
 * still where it was seen (whatever HEAD points at by then), and no hook runs.
 */
function commitChanges(site: WorktreeSite, run: FinishedRun, parent: string): string | undefined {
  const added = runGit(site.path, ["add", "-A", "--", "."]);
  if (!added.ok) return `git add failed: ${added.message}; the changes are left uncommitted in the worktree`;
  const tree = runGit(site.path, ["write-tree"]);
  if (!tree.ok) return `git write-tree failed: ${tree.message}; the changes are left uncommitted in the worktree`;
  const parentTree = runGit(site.path, ["rev-parse", "--verify", "-q", `${parent}^{tree}`]);
  // Everything staged matched the last commit after all (only mode or line-ending noise): nothing to commit.
  if (parentTree.ok && parentTree.stdout.trim() === tree.stdout.trim()) return undefined;
  const commit = runGit(
    site.path,
    ["-c", "commit.gpgsign=false", "commit-tree", tree.stdout.trim(), "-p", parent, "-m", commitMessage(run)],
    identityEnvironment(site.path),
  );
  if (!commit.ok) return `git commit-tree failed: ${commit.message}; the changes are left uncommitted in the worktree`;
  const moved = runGit(site.path, [
    "update-ref",
    "-m",
    `subagent ${run.agent}: commit of task ${run.taskId}`,
    `refs/heads/${site.branch}`,
    commit.stdout.trim(),
    parent,
  ]);
  if (!moved.ok) return `git update-ref failed: ${moved.message}; the changes are left uncommitted in the worktree`;
  return undefined;
}
