// @ts-check
/**
 * Everything between a validated dispatch and a spawn: the working directory and executable checks, the task
 * id (new, or the resumed session's), the session file and its run lock, the resolved model and thinking, the
 * agent body in a private temp file, skill paths, and the child's command line. Nothing is left behind on
 * failure: a refused dispatch releases what it took.
 */
import { statSync } from "node:fs";
/** @import { AgentDefinition } from "../agents/types.ts" */
/** @import { LoadedConfig } from "../config/load.js" */
import { resolveModelConfig } from "../config/resolve.js";
/** @import { ResolvedModelConfig } from "../config/types.ts" */
import { readChildMode } from "../run/child-mode.js";
import { buildChildCommand, childPrompt, extensionArgForChild, extensionArgsOf } from "../run/command-line.js";
/** @import { ChildCommand } from "../run/command-line.js" */
import { promptProblem } from "../run/task-text.js";
import { findPiExecutable } from "../run/pi-executable.js";
import { ownIdentity } from "../run/proc-identity.js";
import { ownPackage } from "../run/own-package.js";
import { removeAgentPrompt, writeAgentPrompt } from "../run/prompt-file.js";
import { createSessionFile, sessionFileExists, sessionFilePath } from "../run/session-file.js";
import { acquireSessionLock } from "../run/session-lock.js";
import { resolveSkillPaths } from "../run/skill-paths.js";
import { toHostThinkingLevel } from "../shared/thinking.js";
import { newTaskId } from "../tasks/task-id.js";
import { readEnvBudget } from "../budget/env-budget.js";
import { applyCallBudget, resolveConfiguredBudget } from "../budget/resolve-budget.js";
/** @import { ResolvedBudget } from "../budget/resolve-budget.js" */
/** @import { TaskOrigin } from "../tasks/types.ts" */
/** @import { ForkedHistory } from "../run/fork-history.js" */
import { DEFAULT_MAX_DEPTH } from "../shared/depth.js";
import { sessionBusyMessage, unknownSessionMessage } from "./texts.js";
/** @import { DispatchRequest } from "./validate.js" */
/** @import { takeWorktree } from "./take-worktree.js" */
/** @import { WorktreeLease } from "../worktree/lease.js" */

/**
 * @typedef {object} DispatchEnvironment
 * @property {string} agentDir
 * @property {string} cwd
 * @property {string} [inheritedModel] The main agent's current model as `provider/id` (the fallback model).
 * @property {number} parentDepth
 * @property {NodeJS.ProcessEnv} baseEnv
 * @property {readonly string[]} argv
 * @property {string} home
 * @property {"sync" | "async"} [mode] Blocking or background; kept in the run lock so a run whose pi died can be
 *   recorded later.
 * @property {string} [parentSessionId] The main agent's session, kept in the run lock for the same reason.
 * @property {number} [maxDepth] The tree's nesting limit the child gets (default 1: the child cannot dispatch).
 * @property {ForkedHistory} [forkedHistory] For `context: "fork"`: the main conversation, written into the new
 *   session before the task.
 * @property {WorktreeTaker} takeWorktree Which worktree the task runs in: take-worktree.js's takeWorktree where the
 *   dispatch may use one (isolation "worktree", or a resume, whose session may have run in one), else noWorktree.
 *   Passed in so that the git and worktree modules load only for such a dispatch.
 */

/**
 * take-worktree.js's `takeWorktree`, or `noWorktree` for a dispatch that cannot use one (its module is not loaded then).
 * @typedef {typeof takeWorktree} WorktreeTaker
 */

/**
 * Whether a dispatch may run in a worktree, and so needs take-worktree.js.
 * @param {Pick<DispatchRequest, "isolation" | "sessionId">} request
 * @returns {boolean}
 */
export function mayUseWorktree(request) {
  return request.isolation === "worktree" || request.sessionId !== undefined;
}

/**
 * The taker for a dispatch that cannot use a worktree (see mayUseWorktree).
 * @type {WorktreeTaker}
 */
export const noWorktree = (request, _env, _taskId, resumed) => {
  if (request.isolation === "worktree" || resumed) throw new Error("This dispatch may use a worktree: load take-worktree.js for it.");
  return { ok: true };
};

/**
 * @typedef {object} PreparedRun
 * @property {string} taskId
 * @property {AgentDefinition} agent
 * @property {string} task
 * @property {boolean} resumed
 * @property {string} sessionFile
 * @property {string} cwd
 * @property {ChildCommand} command
 * @property {ResolvedModelConfig} resolved
 * @property {ResolvedBudget} [budget] The task's budget: limits with their sources, and any call value that was capped.
 * @property {TaskOrigin} [origin] Its depth in the tree, the tree's limit, and whether it was forked.
 * @property {string[]} notes Things the person or model should know (a dropped skill path, `max` passed as `xhigh`).
 * @property {() => void} release Removes the agent's prompt file and releases the session's run lock. Idempotent.
 * @property {(pid: number) => void} [childStarted] Names the spawned child in the run lock (the process that really
 *   writes the session).
 * @property {WorktreeLease} [worktree] isolation "worktree": the task's git worktree (`cwd` is in it); finished by
 *   whoever records the result.
 */

/** @typedef {{ ok: true; run: PreparedRun } | { ok: false; message: string }} Prepared */

/**
 * @param {string} cwd
 * @returns {string | undefined}
 */
function checkWorkingDirectory(cwd) {
  try {
    if (!statSync(cwd).isDirectory()) return `Cannot start the subagent: the working directory ${cwd} is not a directory.`;
  } catch {
    return `Cannot start the subagent: the working directory ${cwd} does not exist.`;
  }
  return undefined;
}

/**
 * @param {DispatchRequest} request
 * @param {DispatchEnvironment} env
 * @param {LoadedConfig} config
 * @returns {Prepared}
 */
export function prepareDispatch(request, env, config) {
  const cwdProblem = checkWorkingDirectory(env.cwd);
  if (cwdProblem) return { ok: false, message: cwdProblem };
  const executable = findPiExecutable(env.argv);
  if (!executable.ok) return { ok: false, message: executable.message };
  const childMode = readChildMode(env.baseEnv);
  const promptTrouble = promptProblem(childPrompt(request.task, env.forkedHistory !== undefined && request.sessionId === undefined), childMode);
  if (promptTrouble) return { ok: false, message: promptTrouble };

  const resumed = request.sessionId !== undefined;
  const taskId = request.sessionId ?? newTaskId();
  if (resumed && !sessionFileExists(env.agentDir, taskId)) return { ok: false, message: unknownSessionMessage(taskId) };
  // A fork applies to a new session only (validation never asks for one on resume).
  const forked = resumed ? undefined : env.forkedHistory;
  const maxDepth = env.maxDepth ?? DEFAULT_MAX_DEPTH;
  /** @type {TaskOrigin} */
  const origin = { depth: env.parentDepth + 1, maxDepth, context: forked ? "fork" : "fresh" };
  if (forked) origin.forkedMessages = forked.messageCount;
  // A worktree is taken before the session file exists: its header names the folder pi runs the child in.
  const worktree = env.takeWorktree(request, env, taskId, resumed);
  if (!worktree.ok) return worktree;
  const lease = worktree.lease;
  const cwd = lease?.cwd ?? env.cwd;
  /** @type {string} */
  let sessionFile;
  try {
    sessionFile = resumed ? sessionFilePath(env.agentDir, taskId) : createSessionFile(env.agentDir, taskId, cwd, new Date(), forked?.lines);
  } catch (error) {
    lease?.discard();
    throw error;
  }
  const lock = acquireSessionLock(env.agentDir, taskId, request.agent.name, {
    task: request.task,
    mode: env.mode,
    parentSessionId: env.parentSessionId,
    cwd,
  });
  if (!lock.acquired) {
    // Another run of this session holds the worktree: it is theirs to finish, never ours to remove.
    return { ok: false, message: sessionBusyMessage(taskId, lock.holder) };
  }

  // Whether this run wrote the agent's body into the task's folder (removed before the lock is released).
  let promptWritten = false;
  const release = () => {
    if (promptWritten) removeAgentPrompt(env.agentDir, taskId);
    promptWritten = false;
    lock.release();
  };
  try {
    /** @type {string[]} */
    const notes = [...(lease?.notes ?? [])];
    const resolved = resolveModelConfig(request.agent, config, env.inheritedModel);
    const budget = applyCallBudget(resolveConfiguredBudget(request.agent, config, readEnvBudget(env.baseEnv).limits), request.budget ?? {});
    const thinking = resolved.thinking.value;
    if (thinking === "max") notes.push("thinking level max was passed to pi as xhigh, the strongest level pi 0.73.1 accepts");

    /** @type {string | undefined} */
    let systemPromptFile;
    if (request.agent.body.trim()) {
      promptWritten = true;
      systemPromptFile = writeAgentPrompt(env.agentDir, taskId, request.agent.body);
    }

    /** @type {string[] | undefined} */
    let skills;
    if (request.agent.skills !== undefined) {
      const resolution = resolveSkillPaths(request.agent.skills, cwd, env.home);
      skills = resolution.paths;
      notes.push(...resolution.warnings);
    }

    const command = buildChildCommand({
      pi: executable.pi,
      sessionFile,
      model: resolved.model.value,
      thinking: thinking ? toHostThinkingLevel(thinking) : undefined,
      tools: request.agent.tools,
      skills,
      systemPromptFile,
      // A relative `-e x.ts` was relative to the parent's cwd; the child gets the absolute path.
      extraExtensions: extensionArgsOf(env.argv).map((path) => extensionArgForChild(path, process.cwd())),
      task: request.task,
      mode: childMode,
      agentName: request.agent.name,
      parentDepth: env.parentDepth,
      baseEnv: env.baseEnv,
      taskId,
      parent: ownIdentity(),
      maxDepth,
      forked: forked !== undefined,
      ownPackage: ownPackage(),
    });
    return {
      ok: true,
      run: { taskId, agent: request.agent, task: request.task, resumed, sessionFile, cwd, command, resolved, budget, origin, notes, release, childStarted: lock.childStarted, worktree: lease },
    };
  } catch (error) {
    release();
    lease?.discard();
    throw error;
  }
}
