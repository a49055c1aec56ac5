/**
 * A validated call up to its command line, its worktree taken on the way.
 */
import { readRecord } from "../records/record-store.ts";
import {
  sessionFilePath,
  removeAgentPrompt,
  writeAgentPrompt,
  createSessionFile,
  sessionFileExists,
  agentPromptIs,
  agentPromptPath,
  acquireSessionLock,
  taskDir as taskFolder,
} from "../run/session-files.ts";
import { createWorktree, resumeWorktree, sessionHeaderCwd, type WorktreeLease } from "../worktree/lease.ts";
import type { DispatchRequest } from "./validate.ts";
import { realpathSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { AgentDefinition } from "../agents/parse.ts";
import type { LoadedConfig, ResolvedModelConfig } from "../config/load.ts";
import {
  resolveModelConfig,
  applyCallBudget,
  resolveConfiguredBudget,
  resolveLoopGuard,
  resolveDeliverableCheck,
  keepRecordedSandbox,
  resolveSandbox,
  readSandboxSettings,
  type ResolvedBudget,
  type ResolvedSandbox,
} from "../config/resolve.ts";
import { readChildMode } from "../run/stop-sequence.ts";
import type { WarmPool } from "../warm/warm-pool.ts";
import type { WarmSlot } from "../run/runner.ts";
import {
  buildChildCommand,
  childPrompt,
  extensionArgForChild,
  resolveSkillPaths,
  type ChildCommand,
} from "../run/command-line.ts";
import { extensionArgsOf } from "../shared/this-process.ts";
import { promptProblem } from "../run/rpc.ts";
import { findPiExecutable, newTaskId } from "../shared/run-settings.ts";
import { ownIdentity } from "../shared/proc-identity.ts";
import { toHostThinkingLevel } from "../shared/thinking.ts";
import { readEnvBudget } from "../budget/limits.ts";
import { readEnvLoopGuard, type LoopGuardSetting } from "../budget/loop-setting.ts";
import type { TaskOrigin } from "../records/record.ts";
import type { ForkedHistory } from "../run/fork-history.ts";
import { DEFAULT_MAX_DEPTH } from "../shared/nesting.ts";
import { sessionBusyMessage, unknownSessionMessage } from "./texts.ts";
import { keepRecordedTools, toolsNotGrantedText, type ToolGrant } from "../authority/tool-ceiling.ts";
import { protectedLinkMessage, sandboxRefusedMessage } from "../sandbox/levels.ts";
import { checkCommandLine, verifyRefusedMessage } from "../run/verify.ts";
import { resolveVerify, type VerifySetting } from "../budget/verify-setting.ts";
import {
  AUTH_FILE,
  bwrapArgs,
  isFreeInPrivateTmp,
  missingProtectedFiles,
  protectedMountPoints,
} from "../sandbox/bwrap-args.ts";
import { hostJitiCacheDir, jitiEntriesToCopy, type HandedSource } from "../sandbox/handed-files.ts";
import {
  bwrapDirs,
  findWorkingBwrap,
  nodeCompileCacheDirs,
  readProtectedWorkspace,
  readSandboxLayout,
} from "../sandbox/sandbox-layout.ts";

/*
 * The dispatch's side of worktree isolation: which worktree (if any) a task runs in. A new task with
 * isolation "worktree" gets a new one; a resumed task runs where its session started, which re-takes its
 * worktree when it had one (see resumeWorktree). No isolation and no worktree session: nothing to take.
 */
type TakenWorktree = { ok: true; lease?: WorktreeLease } | { ok: false; message: string };

function takeWorktree(
  request: Pick<DispatchRequest, "isolation" | "isolationRequested">,
  env: { agentDir: string; cwd: string },
  taskId: string,
  resumed: boolean,
): TakenWorktree {
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

/*
 * Everything between a validated dispatch and a spawn: the working directory and executable checks, the task
 * id (new, or the resumed session's), the session file and its run lock, the resolved model and thinking, the
 * agent body in a private temp file, skill paths, and the child's command line. Nothing is left behind on
 * failure: a refused dispatch releases what it took.
 */
export interface DispatchEnvironment {
  agentDir: string;
  cwd: string;
  /** The main agent's current model as `provider/id` (the fallback model). */
  inheritedModel?: string;
  parentDepth: number;
  baseEnv: NodeJS.ProcessEnv;
  argv: readonly string[];
  home: string;
  /**
   * Blocking or background; kept in the run lock so a run whose pi died can be
   * recorded later.
   */
  mode?: "sync" | "async";
  /** The main agent's session, kept in the run lock for the same reason. */
  parentSessionId?: string;
  /** The tree's nesting limit the child gets (default 1: the child cannot dispatch). */
  maxDepth?: number;
  /**
   * For `context: "fork"`: the main conversation, written into the new
   * session before the task.
   */
  forkedHistory?: ForkedHistory;
  /** The tools the ceiling grants the child (absent: the agent's own list, unchecked, as in tests of other parts). */
  toolGrant?: ToolGrant;
  /** pi 1.x: the flag that hands the session's project-trust decision down. */
  trustFlag?: "--approve" | "--no-approve";
  /** Where bwrap is looked for (default: the system's folders, src/sandbox/sandbox-layout.ts). */
  bwrapDirs?: readonly string[];
  /** The pool of children started ahead (pi 1.x, the main pi, `$warmChildren` above 0); absent: every child is cold. */
  warm?: WarmPool;
}

export interface PreparedRun {
  taskId: string;
  agent: AgentDefinition;
  task: string;
  resumed: boolean;
  sessionFile: string;
  cwd: string;
  command: ChildCommand;
  resolved: ResolvedModelConfig;
  /** The sandbox the child runs in, and who decided it. */
  sandbox?: ResolvedSandbox;
  /** The task's budget: limits with their sources, and any call value that was capped. */
  budget?: ResolvedBudget;
  /** The loop guard it runs with (src/run/loop-guard.ts). */
  loopGuard?: LoopGuardSetting;
  /** Whether the deliverable check runs (`deliverableCheck` of the config entry, else the frontmatter; default on). */
  deliverableCheck?: boolean;
  /** Its `verify` check: the agent's command, then the call's (src/run/verify.ts); absent: none. */
  verify?: VerifySetting;
  /** Its depth in the tree, the tree's limit, and whether it was forked. */
  origin?: TaskOrigin;
  /** Things the person or model should know (a dropped skill path, `max` passed as `xhigh`). */
  notes: string[];
  /** Removes the agent's prompt file and releases the session's run lock. Idempotent. */
  release: () => void;
  /**
   * Names the spawned child in the run lock (the process that really
   * writes the session).
   */
  childStarted?: (pid: number) => void;
  /**
   * isolation "worktree": the task's git worktree (`cwd` is in it); finished by
   * whoever records the result.
   */
  worktree?: WorktreeLease;
  /** Its link to the pool of warm children (src/warm/warm-pool.ts), for the runner; absent: a cold child. */
  warm?: WarmSlot;
}

export type Prepared = { ok: true; run: PreparedRun } | { ok: false; message: string };

function checkWorkingDirectory(cwd: string): string | undefined {
  try {
    if (!statSync(cwd).isDirectory())
      return `Cannot start the subagent: the working directory ${cwd} is not a directory.`;
  } catch {
    return `Cannot start the subagent: the working directory ${cwd} does not exist.`;
  }
  return undefined;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function prepareDispatch(request: DispatchRequest, env: DispatchEnvironment, config: LoadedConfig): Prepared {
  const cwdProblem = checkWorkingDirectory(env.cwd);
  if (cwdProblem) return { ok: false, message: cwdProblem };
  const executable = findPiExecutable(env.argv);
  if (!executable.ok) return { ok: false, message: executable.message };
  const childMode = readChildMode(env.baseEnv);
  const promptTrouble = promptProblem(
    childPrompt(request.task, env.forkedHistory !== undefined && request.sessionId === undefined),
    childMode,
  );
  if (promptTrouble) return { ok: false, message: promptTrouble };

  // Fail closed, before anything is taken: a sandbox that was asked for and cannot be made is a refusal.
  const sandboxSettings = readSandboxSettings(config);
  // A resumed task keeps the stricter of what it ran with and what this call resolves (sandbox and tools alike).
  const recorded = request.sessionId !== undefined ? readRecord(env.agentDir, request.sessionId)?.origin : undefined;
  const ownGrant: ToolGrant = env.toolGrant ?? {
    ...(request.agent.tools ? { tools: request.agent.tools } : {}),
    notGranted: [],
  };
  const toolGrant = recorded ? keepRecordedTools(ownGrant, recorded.tools, request.agent.tools) : env.toolGrant;
  const resolvedSandbox = resolveSandbox({
    agent: request.agent,
    userEntry: config.user.entries[request.agent.name]?.sandbox,
    userDefault: sandboxSettings.userDefault,
    projectEntry: config.project.entries[request.agent.name]?.sandbox,
    projectDefault: sandboxSettings.projectDefault,
    call: request.sandbox,
  });
  const sandbox = keepRecordedSandbox(resolvedSandbox, recorded?.sandbox);
  let bwrap: string | undefined;
  if (sandbox.level !== "off") {
    const found = findWorkingBwrap(env.bwrapDirs ?? bwrapDirs(env.baseEnv));
    if (!found.ok) return { ok: false, message: sandboxRefusedMessage(request.agent.name, sandbox, found.reason) };
    bwrap = found.bwrap;
    // A protected name in the project that is a link cannot be kept read-only (a mount covers the link's target, and
    // the link itself could be replaced): refused before anything is taken.
    const links = sandbox.level === "workspace-write" ? readProtectedWorkspace(realPath(env.cwd), []).links : [];
    if (links.length > 0) return { ok: false, message: protectedLinkMessage(request.agent.name, links) };
  }

  const resumed = request.sessionId !== undefined;
  // A child started ahead for a call like this one lends it its task id; whether it serves the call is decided once
  // the call's own command line is built (src/warm/warm-launch.ts).
  const warmable =
    env.warm?.warmable({
      resumed,
      forked: env.forkedHistory !== undefined,
      isolation: request.isolation,
      mode: childMode,
    }) === true;
  const reservation = warmable ? env.warm?.reserve(env.agentDir, request.agent.name, env.cwd) : undefined;
  const taskId = request.sessionId ?? reservation?.taskId ?? newTaskId();
  if (resumed && !sessionFileExists(env.agentDir, taskId)) return { ok: false, message: unknownSessionMessage(taskId) };
  // A fork applies to a new session only (validation never asks for one on resume).
  const forked = resumed ? undefined : env.forkedHistory;
  const maxDepth = env.maxDepth ?? DEFAULT_MAX_DEPTH;
  const origin: TaskOrigin = { depth: env.parentDepth + 1, maxDepth, context: forked ? "fork" : "fresh" };
  if (forked) origin.forkedMessages = forked.messageCount;
  const notGranted = toolGrant ? toolsNotGrantedText(toolGrant) : undefined;
  if (notGranted) origin.toolsNotGranted = notGranted;
  if (sandbox.level !== "off") origin.sandbox = sandbox.level;
  const childToolList = toolGrant ? toolGrant.tools : request.agent.tools;
  if (childToolList) origin.tools = [...childToolList];
  // A worktree is taken before the session file exists: its header names the folder pi runs the child in.
  const worktree = takeWorktree(request, env, taskId, resumed);
  if (!worktree.ok) return worktree;
  const lease = worktree.lease;
  const cwd = lease?.cwd ?? env.cwd;
  let sessionFile: string;
  try {
    sessionFile = resumed
      ? sessionFilePath(env.agentDir, taskId)
      : (reservation?.sessionFile ?? createSessionFile(env.agentDir, taskId, cwd, new Date(), forked?.lines));
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
    reservation?.cancel();
    // Another run of this session holds the worktree: it is theirs to finish, never ours to remove.
    return { ok: false, message: sessionBusyMessage(taskId, lock.holder) };
  }

  // Whether this run wrote the agent's body into the task's folder (removed before the lock is released); a warm
  // child's folder may hold one however the call turns out.
  let promptWritten = reservation !== undefined;
  // Each step is tried even when the one before failed (a read-only or full disk): a prompt file that cannot
  // be removed must not keep the lock too. The first failure is thrown afterwards, for the caller to report;
  // what is left is removed by the next start's clean-up.
  const release = () => {
    // A child started ahead that this call did not take ends with the call (its folder is the call's now).
    reservation?.cancel();
    let failure: unknown;
    if (promptWritten) {
      try {
        removeAgentPrompt(env.agentDir, taskId);
      } catch (error) {
        failure = error;
      }
    }
    promptWritten = false;
    try {
      lock.release();
    } catch (error) {
      failure ??= error;
    }
    if (failure !== undefined) throw failure;
  };
  try {
    const notes: string[] = [...(lease?.notes ?? [])];
    const resolved = resolveModelConfig(request.agent, config, env.inheritedModel, {
      model: request.model,
      thinking: request.thinking,
    });
    const budget = applyCallBudget(
      resolveConfiguredBudget(request.agent, config, readEnvBudget(env.baseEnv).limits),
      request.budget ?? {},
    );
    const thinking = resolved.thinking.value;
    if (thinking === "max")
      notes.push("thinking level max was passed to pi as xhigh, the strongest level pi 0.73.1 accepts");

    let systemPromptFile: string | undefined;
    const body = request.agent.body.trim() ? request.agent.body : undefined;
    if (body !== undefined) {
      promptWritten = true;
      // A warm child may still be reading the file it was started with: the same body is left as it is.
      systemPromptFile =
        reservation && agentPromptIs(env.agentDir, taskId, body)
          ? agentPromptPath(env.agentDir, taskId)
          : writeAgentPrompt(env.agentDir, taskId, body);
    }

    let skills: string[] | undefined;
    if (request.agent.skills !== undefined) {
      const resolution = resolveSkillPaths(request.agent.skills, cwd, env.home);
      skills = resolution.paths;
      notes.push(...resolution.warnings);
    }

    const extraExtensions = extensionArgsOf(env.argv).map((path) => extensionArgForChild(path, process.cwd()));
    let sandboxArgs: { bwrap: string; args: string[]; handIn: HandedSource[]; mountPoints: string[] } | undefined;
    if (bwrap && sandbox.level !== "off") {
      const layout = readSandboxLayout({
        level: sandbox.level,
        cwd,
        agentDir: env.agentDir,
        taskDir: taskFolder(env.agentDir, taskId),
        home: env.home,
        extraHidden: sandboxSettings.hide,
        programs: [
          executable.pi.command,
          ...executable.pi.prefixArgs,
          ...extraExtensions.filter((path) => path.startsWith("/")),
        ],
        readOnly: nodeCompileCacheDirs(env.baseEnv),
        ...(reservation ? { asMissing: reservation.madePaths } : {}),
      });
      if (layout.protectedLinks.length > 0) {
        // The worktree has a link the project folder had not: refused all the same, releasing what was taken.
        release();
        lease?.discard();
        return { ok: false, message: protectedLinkMessage(request.agent.name, layout.protectedLinks) };
      }
      // The child's own copies of jiti's entries for this package, where its jiti looks (in its private /tmp).
      const jitiCache = hostJitiCacheDir();
      const jitiEntries = isFreeInPrivateTmp(layout, jitiCache) ? jitiEntriesToCopy(jitiCache) : [];
      // The child's own copy of the login file first, then jiti's entries, then an empty file per missing protected file.
      const handedIn = [
        join(layout.agentDir, AUTH_FILE),
        ...jitiEntries.map((entry) => join(jitiCache, basename(entry))),
      ];
      const handIn: HandedSource[] = [
        { loginCopyOf: join(layout.agentDir, AUTH_FILE) },
        ...jitiEntries,
        ...missingProtectedFiles(layout).map(() => "/dev/null"),
      ];
      sandboxArgs = {
        bwrap,
        args: bwrapArgs({ ...layout, handedIn }),
        handIn,
        mountPoints: protectedMountPoints(layout),
      };
    }
    const command = buildChildCommand({
      pi: executable.pi,
      sessionFile,
      model: resolved.model.value,
      thinking: thinking ? toHostThinkingLevel(thinking) : undefined,
      tools: childToolList,
      ...(toolGrant?.mcp ? { mcp: toolGrant.mcp } : {}),
      trustFlag: env.trustFlag,
      skills,
      systemPromptFile,
      // A relative `-e x.ts` was relative to the parent's cwd; the child gets the absolute path.
      extraExtensions,
      sandbox: sandboxArgs,
      task: request.task,
      mode: childMode,
      agentName: request.agent.name,
      parentDepth: env.parentDepth,
      baseEnv: env.baseEnv,
      taskId,
      parent: ownIdentity(),
      maxDepth,
      forked: forked !== undefined,
    });
    const verify = resolveVerify(request.agent, request.verify);
    const checkPlan = verify ? checkCommandLine(command, "true", sandbox.level !== "off") : undefined;
    if (checkPlan && !checkPlan.ok) {
      // A sandboxed child's check runs in its sandbox or not at all: refused before anything starts.
      release();
      lease?.discard();
      return { ok: false, message: verifyRefusedMessage(request.agent.name, checkPlan.reason) };
    }
    return {
      ok: true,
      run: {
        taskId,
        agent: request.agent,
        task: request.task,
        resumed,
        sessionFile,
        cwd,
        command,
        resolved,
        sandbox,
        budget,
        loopGuard: resolveLoopGuard(request.agent, config, readEnvLoopGuard(env.baseEnv).value),
        deliverableCheck: resolveDeliverableCheck(request.agent, config),
        ...(verify ? { verify } : {}),
        origin,
        notes,
        release,
        childStarted: lock.childStarted,
        worktree: lease,
        // The pool's part: the reserved child if it is this very one, and what the next child like it is started from.
        ...(warmable && env.warm
          ? {
              warm: env.warm.slot(
                reservation,
                { taskId, command, cwd, agentDir: env.agentDir, agentName: request.agent.name, home: env.home, body },
                () => {
                  origin.warm = true;
                },
              ),
            }
          : {}),
      },
    };
  } catch (error) {
    release();
    lease?.discard();
    throw error;
  }
}
