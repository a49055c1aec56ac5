/**
 * The dispatch's side of worktree isolation: which worktree (if any) a task runs in. A new task with
 * isolation "worktree" gets a new one; a resumed task runs where its session started, which re-takes its
 * worktree when it had one (see resumeWorktree). No isolation and no worktree session: nothing to take.
 */
import { readRecord } from "../records/record-store.ts";
import { sessionFilePath } from "../run/session-file.ts";
import { createWorktree, resumeWorktree } from "../worktree/lease.ts";
import { sessionHeaderCwd } from "../worktree/session-cwd.ts";
import type { WorktreeLease } from "../worktree/lease.ts";
import type { DispatchRequest } from "./validate.ts";

export type TakenWorktree = { ok: true; lease?: WorktreeLease } | { ok: false; message: string };

export function takeWorktree(request: Pick<DispatchRequest, "isolation" | "isolationRequested">, env: { agentDir: string; cwd: string }, taskId: string, resumed: boolean): TakenWorktree {
  if (!resumed) {
    if (request.isolation !== "worktree") return { ok: true };
    const created = createWorktree({ cwd: env.cwd, agentDir: env.agentDir, taskId });
    return created.ok ? { ok: true, lease: created.lease } : created;
  }
  const sessionCwd = sessionHeaderCwd(sessionFilePath(env.agentDir, taskId));
  if (sessionCwd === undefined) return { ok: true };
  let recordedBase: string | undefined;
  let recordedRepoRoot: string | undefined;
  try {
    const recorded = readRecord(env.agentDir, taskId)?.worktree;
    recordedBase = recorded?.base;
    recordedRepoRoot = recorded?.repoRoot;
  } catch {
    // no readable record: the base is worked out from git instead
  }
  const taken = resumeWorktree({
    cwd: env.cwd,
    agentDir: env.agentDir,
    taskId,
    sessionCwd,
    recordedBase,
    recordedRepoRoot,
    requested: request.isolationRequested === true,
  });
  if (taken === undefined) return { ok: true };
  return taken.ok ? { ok: true, lease: taken.lease } : taken;
}
