/**
 * `/subagent-worktrees`: the kept worktrees of subagent tasks in this repository. Without arguments the TUI
 * shows a picker (Enter removes the picked one, after a confirmation) and print mode lists them on stdout, one
 * a line; `remove <task id or prefix>` removes one (its folder and its `subagent/<id>` branch); `merge <task id
 * or prefix>` merges its branch into the current branch (src/worktree/merge.ts). A worktree whose task is
 * still running is never removed or merged. Registered by src/pi/commands/commands.ts, which imports this
 * body when the command first runs.
 */
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { isLockLive, readSessionLock } from "../../run/session-files.ts";
import { oneLine } from "../../shared/text.ts";
import { readRecord } from "../../records/record-store.ts";
import { listOurWorktrees, removeListedWorktree, taskBranchOf, type ListedWorktree } from "../../worktree/lease.ts";
import { pickTask, type CommandIo } from "./command-io.ts";
import { WORKTREES_COMMAND } from "../../commands/descriptions.ts";
import { mergeStep } from "../../tasks/merge-task.ts";
import { resolveTaskPrefix } from "../../commands/task-commands.ts";

const NO_WORKTREES = "No subagent worktrees in this repository.";
const WORKTREES_USAGE = `Usage: /${WORKTREES_COMMAND} (list; in the TUI pick one to remove), /${WORKTREES_COMMAND} remove <task id or 4+ character prefix>, or /${WORKTREES_COMMAND} merge <task id or prefix> (into the current branch)`;

export interface WorktreesDeps {
  agentDir: () => string;
  io: (ctx: ExtensionCommandContext) => CommandIo;
}

function isRunning(agentDir: string, taskId: string): boolean {
  const lock = readSessionLock(agentDir, taskId);
  return lock !== undefined && isLockLive(lock);
}

/** `0190…  subagent/0190…  worker · succeeded · 2 files changed · Add the parser  /path` */
function worktreeLine(worktree: ListedWorktree, agentDir: string): string {
  const record = (() => {
    try {
      return readRecord(agentDir, worktree.taskId);
    } catch {
      return undefined;
    }
  })();
  const facts: string[] = [];
  if (record) facts.push(record.agent, record.status);
  if (isRunning(agentDir, worktree.taskId)) facts.push("running");
  const files = record?.worktree?.filesTotal;
  if (files !== undefined) facts.push(`${files} ${files === 1 ? "file" : "files"} changed`);
  const uncommitted = record?.worktree?.uncommitted;
  if (uncommitted) facts.push(`${uncommitted} ${uncommitted === 1 ? "file" : "files"} left uncommitted`);
  if (worktree.prunable) facts.push("folder missing");
  if (record) facts.push(oneLine(record.task, 60));
  const where =
    worktree.branch ??
    (worktree.leftOn ? `(on ${worktree.leftOn}, not subagent/${worktree.taskId})` : "(no subagent branch)");
  return [worktree.taskId, where, facts.join(" · ") || "no record", worktree.path].join("  ");
}

function removeOne(ctx: ExtensionCommandContext, io: CommandIo, agentDir: string, worktree: ListedWorktree): void {
  if (isRunning(agentDir, worktree.taskId)) {
    io.notice(
      `Subagent task ${worktree.taskId} is still running in ${worktree.path}; cancel it first (/subagent-cancel).`,
      "warning",
    );
    io.failed();
    return;
  }
  const removal = removeListedWorktree(ctx.cwd, worktree);
  if (!removal.ok) {
    io.notice(`Could not remove the worktree of ${worktree.taskId}: ${removal.problem}`, "error");
    io.failed();
    return;
  }
  const branch = removal.deletedBranch ? ` and deleted branch ${removal.deletedBranch}` : "";
  io.notice(`Removed worktree ${worktree.path}${branch}.`, "info");
}

/** Merges a task's branch into the current branch; the TUI asks first, showing what the merge would change. */
async function mergeOne(
  ctx: ExtensionCommandContext,
  io: CommandIo,
  agentDir: string,
  worktree: ListedWorktree,
): Promise<void> {
  if (io.surface === "tui") {
    const preview = mergeStep(ctx.cwd, agentDir, worktree, false);
    if (!preview.ok) {
      io.notice(preview.text, "warning");
      io.failed();
      return;
    }
    const question = preview.text.split("\n").slice(0, -1).join("\n");
    if (!(await ctx.ui.confirm("Merge the subagent's branch?", `${question}\nMerge it?`))) return;
  }
  const merged = mergeStep(ctx.cwd, agentDir, worktree, true);
  io.notice(merged.text, merged.ok ? "info" : "warning");
  if (!merged.ok) io.failed();
}

export async function worktreesCommand(args: string, ctx: ExtensionCommandContext, deps: WorktreesDeps): Promise<void> {
  const io = deps.io(ctx);
  const agentDir = deps.agentDir();
  const listing = listOurWorktrees(ctx.cwd, agentDir);
  if (!listing.ok) {
    io.notice(listing.message, "warning");
    io.failed();
    return;
  }
  const worktrees = listing.worktrees;
  const [verb = "", target = "", ...rest] = args.trim().split(/\s+/).filter(Boolean);

  if (verb === "remove" || verb === "merge") {
    const found = rest.length === 0 ? resolveTaskPrefix(target, worktrees) : { kind: "empty" as const };
    if (found.kind !== "found") {
      const why =
        found.kind === "ambiguous"
          ? `"${found.prefix}" matches ${found.matches.length} worktrees`
          : target
            ? `no subagent worktree matches "${oneLine(target, 60)}"`
            : "name the task id";
      io.notice(`${why}. ${WORKTREES_USAGE}`, "warning");
      io.failed();
      return;
    }
    if (verb === "merge") {
      await mergeOne(ctx, io, agentDir, found.task);
      return;
    }
    if (io.surface === "tui") {
      const taskBranch = taskBranchOf(ctx.cwd, found.task);
      const branch = taskBranch ? ` and delete branch ${taskBranch}` : "";
      const ok = await ctx.ui.confirm(
        "Remove the subagent worktree?",
        `Remove ${found.task.path}${branch}? Commits only on that branch are lost.`,
      );
      if (!ok) return;
    }
    removeOne(ctx, io, agentDir, found.task);
    return;
  }
  if (verb) {
    io.notice(WORKTREES_USAGE, "warning");
    io.failed();
    return;
  }
  if (worktrees.length === 0) {
    if (io.surface === "stdio") io.stdout(`${NO_WORKTREES}\n`);
    else io.notice(NO_WORKTREES, "info");
    return;
  }
  const lines = worktrees.map((worktree) => worktreeLine(worktree, agentDir));
  // An RPC client reads stdout as its event stream: the list goes to it as a notice.
  if (io.surface === "rpc") {
    io.notice(lines.join("\n"));
    return;
  }
  if (io.surface === "stdio") {
    io.stdout(`${lines.join("\n")}\n`);
    return;
  }
  const items = worktrees.map((worktree, index) => ({ value: worktree.taskId, label: lines[index] ?? "" }));
  const picked = await pickTask(ctx, { title: "Subagent worktrees (Enter: remove one)", items });
  const worktree = worktrees.find((candidate) => candidate.taskId === picked);
  if (!worktree) return;
  const taskBranch = taskBranchOf(ctx.cwd, worktree);
  const branch = taskBranch ? ` and delete branch ${taskBranch}` : "";
  const ok = await ctx.ui.confirm(
    "Remove the subagent worktree?",
    `Remove ${worktree.path}${branch}? Commits only on that branch are lost.`,
  );
  if (ok) removeOne(ctx, io, agentDir, worktree);
}
