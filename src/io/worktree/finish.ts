/**
 * Ending a task's worktree, whatever ended the task (done, failed, cancelled, timed out, pi exiting): a
 * worktree where nothing changed is removed with its branch; otherwise the child's changes are committed on
 * the subagent branch (never on the person's), and the worktree and branch are kept for review. When git fails
 * on the way, everything is kept and the problem is reported: nothing the child did is ever thrown away.
 */
import { existsSync } from "node:fs";
import { oneLine } from "../../core/shared/format.ts";
import { runGit } from "./git.ts";
import type { ChangedFile, WorktreeReport } from "../../core/worktree/types.ts";

/** Files listed by name in a report; the diff stat and the total still cover all of them. */
export const MAX_LISTED_FILES = 50;
/** Lines of `git diff --stat` kept (the summary line is always kept). */
export const MAX_DIFF_STAT_LINES = 40;

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
  if (!name.ok || !name.stdout.trim()) Object.assign(env, { GIT_AUTHOR_NAME: "pi subagent", GIT_COMMITTER_NAME: "pi subagent" });
  if (!email.ok || !email.stdout.trim()) Object.assign(env, { GIT_AUTHOR_EMAIL: "subagent@pi.invalid", GIT_COMMITTER_EMAIL: "subagent@pi.invalid" });
  return env;
}

function removeWorktree(site: WorktreeSite): string | undefined {
  // --force: ignored files (build output) may be there; tracked and untracked changes were ruled out just before.
  const removed = runGit(site.repoRoot, ["worktree", "remove", "--force", site.path]);
  if (!removed.ok && existsSync(site.path)) return `git worktree remove failed: ${removed.message}`;
  runGit(site.repoRoot, ["worktree", "prune"]);
  const deleted = runGit(site.repoRoot, ["branch", "-D", site.branch]);
  if (!deleted.ok) return `git branch -D ${site.branch} failed: ${deleted.message}`;
  return undefined;
}

function changesReport(site: WorktreeSite, report: WorktreeReport): WorktreeReport {
  const range = [site.base, site.branch];
  const names = runGit(site.repoRoot, ["diff", "--no-color", "--no-ext-diff", "--name-status", "-z", "-M", ...range, "--"]);
  if (names.ok) {
    const files = parseNameStatus(names.stdout);
    report.filesTotal = files.length;
    report.files = files.slice(0, MAX_LISTED_FILES);
  }
  const stat = runGit(site.repoRoot, ["diff", "--no-color", "--no-ext-diff", "--stat=100", "-M", ...range, "--"]);
  if (stat.ok && stat.stdout.trim()) report.diffStat = boundDiffStat(stat.stdout);
  const tip = runGit(site.repoRoot, ["rev-parse", "--short=12", site.branch]);
  if (tip.ok) report.commit = tip.stdout.trim();
  return report;
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
  const status = runGit(site.path, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  const head = runGit(site.path, ["rev-parse", "HEAD"]);
  if (!status.ok || !head.ok) return { ...report, problem: `git status failed: ${status.ok ? (head.ok ? "" : head.message) : status.message}` };
  const dirty = status.stdout.length > 0;
  if (!dirty && head.stdout.trim() === site.base) {
    const problem = removeWorktree(site);
    return problem ? { ...report, problem } : { ...report, kept: false };
  }
  if (dirty) {
    const added = runGit(site.path, ["add", "-A", "--", "."]);
    if (!added.ok) return changesReport(site, { ...report, problem: `git add failed: ${added.message}; the changes are left uncommitted in the worktree` });
    const committed = runGit(
      site.path,
      ["-c", "commit.gpgsign=false", "commit", "--no-verify", "--quiet", "-m", commitMessage(run)],
      identityEnvironment(site.path),
    );
    if (!committed.ok) return changesReport(site, { ...report, problem: `git commit failed: ${committed.message}; the changes are left uncommitted in the worktree` });
  }
  return changesReport(site, report);
}
