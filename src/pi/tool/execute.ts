/**
 * The tool's `execute`: the depth gate, routing, a blocking batch or chain part by part, `action: "merge"`, and the fork's source.
 */
import type { EnqueueResult } from "../../tasks/registry.ts";
import type { BackgroundTasks } from "../../tasks/background-tasks.ts";
import { worktreeReceiptNote } from "../../worktree/worktree.ts";
import {
  buildSessionContext,
  type ExtensionContext,
  type AgentToolResult,
  type AgentToolUpdateCallback,
  type ExtensionAPI,
  type ToolDefinition,
} from "@mariozechner/pi-coding-agent";
import { buildForkedHistory, type ForkMessage, type ForkedHistory } from "../../run/fork-history.ts";
import { isTaskId, DEFAULT_MAX_DEPTH, readMaxDepthEnv, readSubagentDepth } from "../../shared/nesting.ts";
import { oneLine } from "../../shared/text.ts";
import { listOurWorktrees } from "../../worktree/lease.ts";
import { mergeStep } from "../../tasks/merge-task.ts";
import { subagentParameters, type SubagentParams } from "../../tool/schema.ts";
import { homedir } from "node:os";
import { discoverAgents, skippedProjectAgentsDirs } from "../../agents/discover.ts";
import { readClaudeAgentsSetting } from "../../agents/claude-agent.ts";
import {
  formatAgentWarning,
  reportOnceByKey,
  reportWarningsOnce,
  WARNING_PREFIX,
  type WarningSink,
} from "../../agents/warnings.ts";
import {
  currentModelRef,
  resolveDispatchLimits,
  resolveAskPerson,
  resolveSandbox,
  readSandboxSettings,
  callModelProblem,
} from "../../config/resolve.ts";
import { nobodyReasonOf, nestedHopsBelow, type DialogRoute } from "../../dialogs/child-dialogs.ts";
import { forwardToParent } from "../dialogs/forward-to-parent.ts";
import { exportWhenEnded } from "../../trace/otlp-seam.ts";
import { detectAppMode, isAsyncDispatchMode, type AppMode } from "../../shared/pi-process.ts";
import { agentDir, perProcessIfMade } from "../../shared/this-process.ts";
import { newTaskId, readRunSettings, runSettingsWarnings } from "../../shared/run-settings.ts";
import { readEnvBudget } from "../../budget/limits.ts";
import { readEnvLoopGuard } from "../../budget/loop-setting.ts";
import { prepareDispatch, type PreparedRun } from "../../tool/prepare-dispatch.ts";
import type { WarmPool } from "../../warm/warm-pool.ts";
import { loadOnce } from "../../shared/pi-process.ts";
import { MESSAGE_IN_SYNC_MODE, checkDepth, validateDispatch } from "../../tool/validate.ts";
import { runSync, openStderrProgress } from "../../tool/run-sync.ts";
import {
  refreshLoginsBeforeHandIn,
  readSessionAuthority,
  readSessionTools,
  sessionConfig,
  sessionStartOf,
  admitProjectAgent,
} from "./authority.ts";
import { eventBusSink } from "../../delivery/lifecycle-events.ts";
import {
  NO_TASKS_TO_CANCEL_IN_SYNC_MODE,
  projectAgentDeclinedMessage,
  SUBAGENT_TOOL_TEXTS,
  TOOL_NAME,
  unknownActionMessage,
} from "../../tool/texts.ts";
import { resolveFanOutLimits, type FanOutGate } from "../../budget/fan-out.ts";
import {
  decideProjectAuthority,
  readAuthoritySettings,
  guardedChangedNotice,
  guardedChangedRefusal,
  projectAgentsHiddenNote,
  projectSkippedNoticeFor,
  projectSkippedNoticeKey,
  type ProjectAuthority,
} from "../../authority/trust.ts";
import { callVerifyProblem, grantAgentTools } from "../../authority/tool-ceiling.ts";
import type { AgentDefinition, DiscoveryResult } from "../../agents/parse.ts";
import { bwrapDirs, probeAhead } from "../../sandbox/sandbox-layout.ts";
import { sandboxSourceText } from "../../sandbox/levels.ts";
import type { LoadedConfig } from "../../config/load.ts";
import type { TaskOrigin, TaskRecord, WorkflowMembership } from "../../records/record.ts";
import {
  readWorkflowCap,
  isWorkflowCall,
  readWorkflow,
  withPrevious,
  workflowResultText,
  partRefusedMessage,
  type Workflow,
  type WorkflowKind,
  type FinishedPart,
} from "../../workflows/workflow.ts";
import { childTextProblem } from "../../run/rpc.ts";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { limitedOutput, type SubagentResultDetails } from "../../records/record-store.ts";
import type { EndedPart } from "../../workflows/workflow-tracker.ts";
import type { BlockingWorkflowEnd } from "../../workflows/blocking-workflow.ts";

/*
 * Where a fork's messages come from: the main agent's session, projected the way pi builds the model's context
 * (the active branch from the current leaf, the latest compaction's summary in place of what it replaced, and on
 * pi 1.x its context edits). pi's own `buildSessionContext` does that; the extension loader maps this import onto
 * the running pi's package, so each pi uses its own rules. Only reads the session: the parent's file is untouched.
 */
export function forkedConversation(sessionManager: ExtensionContext["sessionManager"]): ForkMessage[] {
  const context = buildSessionContext(sessionManager.getEntries(), sessionManager.getLeafId());
  return context.messages as ForkMessage[];
}

/*
 * The tool's `action: "merge"`: brings a task's kept worktree branch into the current branch in two steps, as
 * cancel does: the first call only says what the merge would change; the same call with `confirm: true` merges.
 * Works in every mode (worktrees are on disk, not in the background registry). Every refusal is thrown.
 */
const MERGE_NEEDS_TASK_ID =
  'action "merge" needs the taskId of a task that ran with isolation "worktree" (its result names the branch subagent/<taskId>). Nothing was merged.';

function mergeAction(params: SubagentParams, cwd: string, agentDir: string): AgentToolResult<unknown> {
  const taskId = (params.taskId ?? "").trim();
  if (!taskId) throw new Error(MERGE_NEEDS_TASK_ID);
  if (!isTaskId(taskId)) throw new Error(`"${oneLine(taskId, 60)}" is not a taskId. ${MERGE_NEEDS_TASK_ID}`);
  const listing = listOurWorktrees(cwd, agentDir);
  if (!listing.ok) throw new Error(`${listing.message} Nothing was merged.`);
  const worktree = listing.worktrees.find((candidate) => candidate.taskId === taskId);
  if (!worktree)
    throw new Error(
      `No kept subagent worktree of task ${taskId} in this repository (an unchanged one was removed when the task ended). Nothing was merged.`,
    );
  const step = mergeStep(cwd, agentDir, worktree, params.confirm === true);
  if (!step.ok) throw new Error(step.text);
  return {
    content: [{ type: "text", text: step.text }],
    details: { taskId, ...(step.confirmRequired ? { confirmRequired: true } : { merged: true, commit: step.commit }) },
  };
}

/*
 * Registers the `subagent` tool with pi and routes each call: the depth gate, then cancel or dispatch;
 * dispatch validates, discovers the agent, resolves its config, prepares the child, and then either blocks
 * until it finishes (print/JSON/RPC) or hands it to the background dispatcher (interactive TUI).
 */
// Loaded only by the dispatches that need them (see docs/processes.md, "Supported pis and loading cost").

/** What the background (TUI) path provides; absent until it is wired. */
export interface BackgroundDispatcher {
  /** The TUI's background tasks: a dispatch goes to them directly (see dispatchReceipt). */
  tasks: () => BackgroundTasks;
  cancel: (params: SubagentParams, ctx: ExtensionContext) => AgentToolResult<unknown>;
  message: (params: SubagentParams, ctx: ExtensionContext) => AgentToolResult<unknown>;
  /** A batch or chain: every part admitted (a refusal starts none), then dispatched; one receipt. */
  dispatchWorkflow: (
    workflow: Workflow,
    admission: WorkflowAdmission,
    ctx: ExtensionContext,
  ) => Promise<AgentToolResult<unknown>>;
}

export function receiptText(agent: string, taskId: string, queue?: { position: number; running: number }): string {
  const receipt = `Dispatched ${agent}. taskId: ${taskId}`;
  if (!queue) return receipt;
  const running = `${queue.running} ${queue.running === 1 ? "subagent" : "subagents"} already running`;
  return `${receipt} (queued: ${running}, this one is number ${queue.position} in line and starts when a slot frees)`;
}

function couldNotStartMessage(agent: string, taskId: string, errorMessage: string): string {
  return `Subagent ${agent} was not dispatched: ${errorMessage}. Nothing is running for taskId ${taskId}; its failed result is recorded and also arrives as a [subagent-result] notification.`;
}

export interface ReceiptDetails {
  receipt: true;
  taskId: string;
  agent: string;
  task: string;
  queued: boolean;
}

/**
 * The tool's answer to a background dispatch: the spec's receipt (with the queue, the worktree, the sandbox and
 * what the tool ceiling cut, so the main agent does not expect the child to edit or run), or, for a task that
 * could not start, an error saying why: never a "Dispatched" receipt for a task that is not running.
 */
export function dispatchReceipt(prepared: PreparedRun, result: EnqueueResult): AgentToolResult<unknown> {
  if ("failed" in result)
    throw new Error(couldNotStartMessage(prepared.agent.name, prepared.taskId, result.errorMessage));
  const details: ReceiptDetails = {
    receipt: true,
    taskId: prepared.taskId,
    agent: prepared.agent.name,
    task: prepared.task,
    queued: !result.started,
  };
  const receipt = receiptText(prepared.agent.name, prepared.taskId, result.started ? undefined : result);
  const notes = [prepared.worktree ? `${receipt}${worktreeReceiptNote(prepared.worktree)}` : receipt];
  if (prepared.origin?.sandbox) notes.push(`- Sandbox: ${prepared.origin.sandbox}`);
  if (prepared.origin?.toolsNotGranted) notes.push(prepared.origin.toolsNotGranted);
  return { content: [{ type: "text", text: notes.join("\n") }], details };
}

/** How the tool's row is drawn in the TUI (provided by the UI part); pi's default rendering when absent. */
export type SubagentToolRenderers = Pick<ToolDefinition<typeof subagentParameters>, "renderCall" | "renderResult">;

export interface SubagentToolOptions {
  background?: BackgroundDispatcher;
  renderers?: SubagentToolRenderers;
  /** How pi runs (default: read from this process, as pi decides it). */
  appMode?: AppMode;
  /**
   * The parent's command line, for the child's pi entry and `-e` flags (default:
   * `process.argv`).
   */
  argv?: readonly string[];
  /**
   * Caps how many tasks a run of the main agent dispatches and how many are in
   * flight (absent: no caps).
   */
  fanOutGate?: FanOutGate;
  /** Hears of every blocking run's record once it ended (the session ledger). */
  onRecorded?: (record: TaskRecord) => void;
}

type ToolResult = AgentToolResult<unknown>;

/** A dispatch ready to start; a blocking one holds its place among the fan-out gate's runs in flight. */
export interface PreparedPart {
  prepared: PreparedRun;
  endBlocking?: () => void;
  /** `$askPerson` of the user file: whether the child's questions may reach the person. */
  askPerson: boolean;
}

/**
 * A dispatch that passed every check; `prepare` takes its task id, session and worktree (throws a refusal).
 * `task` replaces the admitted task (a chain step's, its `{previous}` filled in); it is checked as a call's is.
 */
export interface AdmittedPart {
  agent: string;
  /** The task as the call gave it. */
  task: string;
  prepare: (task?: string) => PreparedPart;
  /** Gives back its place in the fan-out count when it will never start (a later part of its batch was refused). */
  withdraw?: () => void;
}

type BlockingResult = Awaited<ReturnType<typeof runSync>>;

function textResult(text: string, details: unknown = undefined): ToolResult {
  return { content: [{ type: "text", text }], details };
}

/** Print and JSON mode: pi exits once the answer is out (an export then gets a short time at most). */
function exitsSoon(appMode: AppMode): boolean {
  return appMode === "print" || appMode === "json";
}

function warningSink(ctx: ExtensionContext): WarningSink {
  return ctx.hasUI ? { hasUI: true, ui: ctx.ui } : { hasUI: false, ui: { notify: () => {} } };
}

/**
 * The pool of warm children a call may use: only on a pi that has them (pi 1.x, told by its MCP) and only in the main
 * pi (a subagent's own children are few and short-lived), sized by the person's setting now.
 */
async function warmPoolFor(supported: boolean, config: LoadedConfig, sink: WarningSink): Promise<WarmPool | undefined> {
  if (!supported || readSubagentDepth() > 0) return undefined;
  const { readWarmSettings } = await loadWarmSetting();
  const settings = readWarmSettings(config, process.env);
  reportWarningsOnce(settings.warnings, sink);
  if (settings.max === 0) {
    // Turned off: children that wait from before end now; the pool's modules are not loaded for it.
    perProcessIfMade<WarmPool>("warm-children")?.configure(settings);
    return undefined;
  }
  const pool = (await loadWarmPool()).warmPool();
  pool.configure(settings);
  return pool;
}

/** The warm pool's modules, loaded by the first call that may use them (pi 1.x, the main pi): never on pi 0.73.1. */
const loadWarmSetting = loadOnce(() => import("../../warm/warm-launch.ts"));
const loadWarmPool = loadOnce(() => import("../../warm/warm-pool.ts"));

/** An unknown agent in a project whose agents were left out: the refusal says why, and who can change it. */
function unknownAgentNote(params: SubagentParams, discovery: DiscoveryResult, authority: ProjectAuthority): string {
  const name = (params.agent ?? "").trim();
  if (!authority.hiddenBecause || !skippedProjectAgentsDirs(discovery) || name === "") return "";
  if (discovery.agents.some((agent) => agent.name === name)) return "";
  return projectAgentsHiddenNote(authority.hiddenBecause);
}

/**
 * Where a blocking run's dialogs go: up to the parent when this pi is itself a subagent under RPC (its own dialogs
 * reach its parent, and so the person); nowhere otherwise, and the result says why.
 */
function blockingDialogRoute(
  askPerson: boolean,
  appMode: AppMode,
  ctx: ExtensionContext,
  task: { agent: string; taskId: string },
  origin: TaskOrigin | undefined,
): DialogRoute {
  if (!askPerson) return { kind: "nobody", reason: "$askPerson is false" };
  if (appMode === "rpc" && readSubagentDepth() >= 1 && ctx.hasUI)
    return forwardToParent(ctx.ui, task, origin ? nestedHopsBelow(origin.depth, origin.maxDepth) : 0);
  return { kind: "nobody", reason: nobodyReasonOf(appMode) };
}

/** `read-only, from the agent's frontmatter`: the sandbox a project agent would run in, for the first-use question. */
function sandboxForQuestion(agent: AgentDefinition, config: LoadedConfig): string {
  const settings = readSandboxSettings(config);
  const sandbox = resolveSandbox({
    agent,
    userEntry: config.user.entries[agent.name]?.sandbox,
    userDefault: settings.userDefault,
    projectEntry: config.project.entries[agent.name]?.sandbox,
    projectDefault: settings.projectDefault,
  });
  return sandbox.level === "off"
    ? `none (off, from ${sandboxSourceText(sandbox.source)})`
    : `${sandbox.level}, from ${sandboxSourceText(sandbox.source)}`;
}

export function registerSubagentTool(pi: ExtensionAPI, options: SubagentToolOptions = {}): void {
  const appMode = options.appMode ?? detectAppMode();
  const argv = options.argv ?? process.argv;

  /**
   * One dispatch from its parameters to a child ready to start: `admitPart` does trust, config, discovery,
   * validation, the call's model, the first-use gate, the fan-out gate, fork and tool ceiling, throwing the
   * refusal; its `prepare` runs prepareDispatch (task id, session file, lock, worktree). A single call, every
   * batch part and every chain step go through it. A blocking part counts as in flight once prepared.
   */
  const admitPart = async (
    params: SubagentParams,
    toolCallId: string,
    ctx: ExtensionContext,
    background: BackgroundDispatcher | undefined,
    reservedPlace?: () => void,
  ): Promise<AdmittedPart> => {
    // A call that asks for a sandbox has bubblewrap's probe run beside the reading below (prepareDispatch still
    // decides, from the same probe's outcome), instead of after it.
    const probing =
      params.sandbox !== undefined && params.sandbox !== "off" ? probeAhead(bwrapDirs(process.env)) : undefined;
    const dir = agentDir();
    // Authority first, as it was at the session's start: what pi let this session see of the project decides what
    // is read at all, and files that appeared since (a child may have written them) decide nothing.
    const { start, changedSinceStart } = readSessionAuthority(ctx, argv, dir);
    const trust = start.trust;
    if (changedSinceStart.length > 0 && trust.kind === "no-trust-system")
      throw new Error(guardedChangedRefusal(changedSinceStart));
    const config = sessionConfig(ctx.cwd, trust, start.userAuthority);
    const settings = readAuthoritySettings(config);
    const authority = decideProjectAuthority(trust, settings.projectAgents, changedSinceStart);
    if (changedSinceStart.length > 0) reportWarningsOnce([guardedChangedNotice(changedSinceStart)], warningSink(ctx));
    const claudeAgents = readClaudeAgentsSetting(config);
    const discovery = discoverAgents({
      cwd: ctx.cwd,
      scope: params.agentScope ?? "both",
      projectAgents: authority.projectAgents,
      claudeAgents: claudeAgents.enabled,
    });
    reportWarningsOnce(discovery.warnings.map(formatAgentWarning), warningSink(ctx));
    const skippedNotice = projectSkippedNoticeFor(
      authority,
      skippedProjectAgentsDirs(discovery),
      config.projectSkipped,
    );
    if (skippedNotice)
      reportOnceByKey(
        projectSkippedNoticeKey(ctx.sessionManager.getSessionId(), ctx.cwd),
        skippedNotice,
        warningSink(ctx),
      );
    const validation = validateDispatch(params, discovery.agents);
    if (!validation.ok) throw new Error(`${validation.message}${unknownAgentNote(params, discovery, authority)}`);
    const request = validation.value;
    const verifyProblem = callVerifyProblem(request.verify, readSessionTools(pi).active, settings.toolCeiling);
    if (verifyProblem) throw new Error(verifyProblem);
    if (request.model !== undefined) {
      const problem = callModelProblem(
        request.model,
        config.models,
        (provider, id) => ctx.modelRegistry.find(provider, id) !== undefined,
      );
      if (problem) throw new Error(problem);
    }

    if (request.confirmProjectAgents && request.agent.source === "project" && ctx.hasUI) {
      const approved = await ctx.ui.confirm(
        "Run a project agent?",
        `The model wants to run "${request.agent.name}", defined in this project at ${request.agent.filePath}.`,
      );
      if (!approved) throw new Error(projectAgentDeclinedMessage(request.agent.name));
    } else {
      const refusal = await admitProjectAgent(
        request.agent,
        authority,
        { canAsk: background !== undefined, ui: ctx.ui, agentDir: dir },
        sandboxForQuestion(request.agent, config),
      );
      if (refusal) throw new Error(refusal);
    }

    const limits = resolveDispatchLimits(process.env, config);
    const askPerson = resolveAskPerson(config.user);
    reportWarningsOnce(
      [
        ...config.warnings,
        ...settings.warnings,
        ...claudeAgents.warnings,
        ...runSettingsWarnings(),
        ...readEnvBudget().warnings,
        ...(readEnvLoopGuard().warning ? [readEnvLoopGuard().warning as string] : []),
        ...limits.warnings,
        ...(askPerson.warning ? [askPerson.warning] : []),
      ],
      warningSink(ctx),
    );
    let withdraw: (() => void) | undefined = reservedPlace;
    if (options.fanOutGate && !reservedPlace) {
      const fanOut = resolveFanOutLimits(process.env, { user: config.user.fanOut, project: config.project.fanOut });
      reportWarningsOnce(fanOut.warnings, warningSink(ctx));
      // Only the TUI asks the person; elsewhere nobody could answer.
      const refusal = await options.fanOutGate.admit(fanOut.limits, ctx, background !== undefined);
      if (refusal) throw new Error(refusal);
      const gate = options.fanOutGate;
      let withdrawn = false;
      withdraw = () => {
        if (withdrawn) return;
        withdrawn = true;
        gate.withdraw();
      };
    }
    let forkedHistory: ForkedHistory | undefined;
    if (request.context === "fork") {
      const fork = buildForkedHistory(forkedConversation(ctx.sessionManager), toolCallId, limits.forkMaxChars.value);
      if (!fork.ok) {
        withdraw?.();
        throw new Error(fork.message);
      }
      forkedHistory = fork.history;
    }
    const sessionTools = readSessionTools(pi, argv);
    const toolGrant = grantAgentTools(request.agent, config, {
      callTools: request.tools,
      session: sessionTools,
      ceiling: settings.toolCeiling,
    });
    const warm = await warmPoolFor(sessionTools.mcp?.supported === true, config, warningSink(ctx));
    await probing;
    return {
      agent: request.agent.name,
      task: request.task,
      ...(withdraw ? { withdraw } : {}),
      prepare: (task?: string) => {
        const problem = task === undefined ? undefined : childTextProblem(task, "task");
        if (problem) throw new Error(problem);
        const prepared = prepareDispatch(
          task === undefined ? request : { ...request, task },
          {
            agentDir: dir,
            cwd: ctx.cwd,
            inheritedModel: currentModelRef(ctx.model),
            parentDepth: readSubagentDepth(),
            baseEnv: process.env,
            argv,
            home: homedir(),
            mode: background ? "async" : "sync",
            parentSessionId: ctx.sessionManager.getSessionId(),
            maxDepth: limits.maxDepth.value,
            forkedHistory,
            toolGrant,
            trustFlag: authority.childTrustFlag,
            warm,
          },
          config,
        );
        if (!prepared.ok) throw new Error(prepared.message);
        reportWarningsOnce(
          prepared.run.notes.map((note) => `${request.agent.name}: ${note}`),
          warningSink(ctx),
        );
        // A blocking run counts against the fan-out caps from now until it ends (so a batch's next part sees it).
        return {
          prepared: prepared.run,
          endBlocking: background ? undefined : options.fanOutGate?.beginBlockingRun(),
          askPerson: askPerson.askPerson,
        };
      },
    };
  };

  /**
   * Takes a batch's (or background chain's) places in the run's fan-out count at once, before any part is admitted:
   * one give-back function a part, or a thrown refusal naming the cap. Nothing to take without a gate.
   */
  const reservePlaces = async (
    count: number,
    ctx: ExtensionContext,
    background: BackgroundDispatcher | undefined,
  ): Promise<(() => void)[] | undefined> => {
    const gate = options.fanOutGate;
    if (!gate) return undefined;
    const start = sessionStartOf(ctx, argv, agentDir());
    const config = sessionConfig(ctx.cwd, start.trust, start.userAuthority);
    const fanOut = resolveFanOutLimits(process.env, { user: config.user.fanOut, project: config.project.fanOut });
    reportWarningsOnce(fanOut.warnings, warningSink(ctx));
    const refusal = await gate.admit(fanOut.limits, ctx, background !== undefined, count);
    if (refusal) throw new Error(refusal);
    return Array.from({ length: count }, () => {
      let given = false;
      return () => {
        if (given) return;
        given = true;
        gate.withdraw();
      };
    });
  };

  const preparePart = async (
    params: SubagentParams,
    toolCallId: string,
    ctx: ExtensionContext,
    background: BackgroundDispatcher | undefined,
  ): Promise<PreparedPart> => (await admitPart(params, toolCallId, ctx, background)).prepare();

  /** Runs a prepared blocking part to its end; its record reaches the ledger. */
  const runBlocking = async (
    part: PreparedPart,
    ctx: ExtensionContext,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<unknown> | undefined,
    workflow?: WorkflowMembership,
  ): Promise<BlockingResult> => {
    let result: BlockingResult;
    await refreshLoginsBeforeHandIn(
      { agent: part.prepared.agent.name, handIn: part.prepared.command.handIn },
      ctx.modelRegistry,
      warningSink(ctx),
    );
    // Print and JSON mode: the person at the terminal hears on stderr what the run is doing.
    const terminal = openStderrProgress(appMode, part.prepared.agent.name, part.prepared.taskId);
    try {
      result = await runSync(part.prepared, {
        agentDir: agentDir(),
        settings: readRunSettings(),
        signal,
        parentSessionId: ctx.sessionManager.getSessionId(),
        dialogs: blockingDialogRoute(
          part.askPerson,
          appMode,
          ctx,
          { agent: part.prepared.agent.name, taskId: part.prepared.taskId },
          part.prepared.origin,
        ),
        onProgress: (text, progress) => onUpdate?.({ content: [{ type: "text", text }], details: { progress } }),
        onTick: terminal?.tick,
        events: eventBusSink(pi.events),
        ...(workflow ? { workflow } : {}),
      });
    } finally {
      part.endBlocking?.();
    }
    terminal?.end(result.record);
    options.onRecorded?.(result.record);
    return result;
  };

  const execute = async (
    toolCallId: string,
    params: SubagentParams,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<unknown> | undefined,
    ctx: ExtensionContext,
  ): Promise<ToolResult> => {
    // A child's limit is in its environment (its parent wrote it); the main agent (depth 0) may always dispatch.
    const depthCheck = checkDepth(readSubagentDepth(), readMaxDepthEnv() ?? DEFAULT_MAX_DEPTH);
    if (!depthCheck.ok) throw new Error(depthCheck.message);
    const background = isAsyncDispatchMode(ctx.hasUI, appMode) ? options.background : undefined;

    // The actions besides `dispatch` (the default, below), one entry each.
    const actions: Record<"cancel" | "message" | "merge", () => ToolResult> = {
      cancel: () => (background ? background.cancel(params, ctx) : textResult(NO_TASKS_TO_CANCEL_IN_SYNC_MODE)),
      message: () => (background ? background.message(params, ctx) : textResult(MESSAGE_IN_SYNC_MODE)),
      merge: () => mergeAction(params, ctx.cwd, agentDir()),
    };
    const action = (params.action ?? "dispatch") as unknown;
    if (action !== "dispatch") {
      if (typeof action !== "string" || !Object.hasOwn(actions, action)) throw new Error(unknownActionMessage(action));
      return actions[action as keyof typeof actions]();
    }
    if (isWorkflowCall(params)) return dispatchWorkflow(params, toolCallId, ctx, background, signal, onUpdate);

    // One task. From here to the child's spawn: the tasks' dispatch, the queue, then the runner (background), or
    // the blocking run, then the runner.
    const part = await preparePart(params, toolCallId, ctx, background);
    if (background) {
      // A background child may wait in the queue: its login is renewed now, with the margin to spare.
      await refreshLoginsBeforeHandIn(
        { agent: part.prepared.agent.name, handIn: part.prepared.command.handIn },
        ctx.modelRegistry,
        warningSink(ctx),
      );
      // `askPerson` is false when `$askPerson` is false: the child's questions are then refused and noted.
      return dispatchReceipt(
        part.prepared,
        background.tasks().dispatch(part.prepared, ctx.sessionManager.getSessionId(), part.askPerson),
      );
    }
    const result = await runBlocking(part, ctx, signal, onUpdate);
    exportWhenEnded(result.record.taskId, warningSink(ctx), exitsSoon(appMode));
    return textResult(result.text, result.details);
  };

  /** A batch or chain: read under its cap, then dispatched in the background or run part by part. */
  const dispatchWorkflow = async (
    params: SubagentParams,
    toolCallId: string,
    ctx: ExtensionContext,
    background: BackgroundDispatcher | undefined,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<unknown> | undefined,
  ): Promise<ToolResult> => {
    const start = sessionStartOf(ctx, argv, agentDir());
    const cap = readWorkflowCap(sessionConfig(ctx.cwd, start.trust, start.userAuthority));
    reportWarningsOnce(cap.warnings, warningSink(ctx));
    const workflow = readWorkflow(params, cap.cap);
    if (!workflow.ok) throw new Error(workflow.message);
    if (background) {
      return background.dispatchWorkflow(
        workflow.workflow,
        {
          admit: (part, place) => admitPart(part, toolCallId, ctx, background, place),
          reserve: (count) => reservePlaces(count, ctx, background),
        },
        ctx,
      );
    }
    const workflowId = newTaskId();
    const result = await runBlockingWorkflow(workflow.workflow, {
      toolCallId,
      ctx,
      signal,
      onUpdate,
      maxConcurrent: readRunSettings().maxConcurrent,
      workflowId,
      now: Date.now,
      admitPart: (part, id, partCtx, place) => admitPart(part, id, partCtx, undefined, place),
      reservePlaces: (count, partCtx) => reservePlaces(count, partCtx, undefined),
      runBlocking,
    });
    exportWhenEnded(workflowId, warningSink(ctx), exitsSoon(appMode));
    return result;
  };

  pi.registerTool({
    ...SUBAGENT_TOOL_TEXTS,
    parameters: subagentParameters,
    execute,
    ...options.renderers,
  });

  // pi marks a tool result as an error only when execute throws, which would drop `details`; a run that did not
  // succeed keeps its structured details and is flagged as an error here instead.
  pi.on("tool_result", (event) => {
    if (event.toolName !== TOOL_NAME) return undefined;
    const details = event.details as { status?: string } | undefined;
    if (details && typeof details.status === "string" && details.status !== "succeeded") return { isError: true };
    return undefined;
  });
}

/*
 * A blocking batch or chain (print, JSON and RPC mode): every part goes through the single dispatch path
 * (`admitPart`, its `prepare`, then `runBlocking`), and the call returns one combined result. A batch admits
 * every part before it prepares any (one refused part starts none and leaves nothing on disk) and runs them side by side, at most `maxConcurrent` at a time; a chain
 * runs its steps one after another, each step's `{previous}` replaced by the output of the step before, and ends
 * at the first step that does not succeed. The workflow has an id as a background one has: each part's record
 * names it, the result says it, and its own record is written once it ended, so a later pi finds all of it.
 */
interface WorkflowDeps {
  toolCallId: string;
  ctx: ExtensionContext;
  signal: AbortSignal | undefined;
  onUpdate: AgentToolUpdateCallback<unknown> | undefined;
  maxConcurrent: number;
  admitPart: (
    params: SubagentParams,
    toolCallId: string,
    ctx: ExtensionContext,
    reservedPlace?: () => void,
  ) => Promise<AdmittedPart>;
  /** Takes a batch's fan-out places at once (see `WorkflowAdmission.reserve`). */
  reservePlaces: (count: number, ctx: ExtensionContext) => Promise<(() => void)[] | undefined>;
  runBlocking: (
    part: PreparedPart,
    ctx: ExtensionContext,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<unknown> | undefined,
    workflow?: WorkflowMembership,
  ) => Promise<BlockingResult>;
  /** The workflow's id (a new task id): each part's record names it, and so does its own record. */
  workflowId: string;
  now: () => number;
}

/** The combined result's `details`: `succeeded` only when the whole workflow did what it was for. */
interface WorkflowDetails {
  kind: WorkflowKind;
  /** The id `/subagent-trace` and `/subagent-result` take for the whole workflow. */
  workflowId: string;
  status: "succeeded" | "failed";
  parts: SubagentResultDetails[];
}

/**
 * Gives back what preparing took for a part that will never run: its lock, prompt file, worktree, fan-out place,
 * and the folder of a new session (a resumed session's folder is the earlier task's, and stays).
 */
function abandon(part: PreparedPart): void {
  part.prepared.release();
  part.prepared.worktree?.discard();
  part.endBlocking?.();
  if (!part.prepared.resumed) rmSync(dirname(part.prepared.sessionFile), { recursive: true, force: true });
}

function finishedPart(result: BlockingResult): FinishedPart {
  return { agent: result.record.agent, status: result.record.status, taskId: result.record.taskId, text: result.text };
}

/** Each part's progress, labelled with its place (`[2/3] worker: ⚡ bash (00:04)`). */
function partProgress(deps: WorkflowDeps, index: number, total: number): AgentToolUpdateCallback<unknown> | undefined {
  const onUpdate = deps.onUpdate;
  if (!onUpdate) return undefined;
  return (update) => {
    const text = update.content.map((item) => (item.type === "text" ? item.text : "")).join("");
    onUpdate({
      content: [{ type: "text", text: `[${index + 1}/${total}] ${text}` }],
      details: { part: index + 1, ...(update.details as object | undefined) },
    });
  };
}

function partLabel(kind: WorkflowKind): string {
  return kind === "chain" ? "Step" : "Part";
}

/** How a workflow's parts are admitted: their fan-out places first, all at once, then each part in order. */
export interface WorkflowAdmission {
  /**
   * Takes `count` places in the run's fan-out count together (one give-back function a place), or throws the
   * refusal; undefined when nothing counts. Taken together so that batches sent side by side in one message do
   * not each take a few places, then all fail on the cap with a count of tasks that never ran.
   */
  reserve: (count: number) => Promise<(() => void)[] | undefined>;
  /** One part, under its reserved place. */
  admit: (params: SubagentParams, reservedPlace?: () => void) => Promise<AdmittedPart>;
}

/** Admits every part in order; the first refusal is thrown, naming the part (nothing was taken yet). */
export async function admitAll(
  kind: WorkflowKind,
  parts: readonly SubagentParams[],
  admission: WorkflowAdmission,
): Promise<AdmittedPart[]> {
  const places = await admission.reserve(parts.length);
  const admitted: AdmittedPart[] = [];
  for (const [index, params] of parts.entries()) {
    try {
      admitted.push(await admission.admit(params, places?.[index]));
    } catch (error) {
      // None starts: every place goes back to the run's fan-out count (each give-back works once).
      for (const part of admitted) part.withdraw?.();
      for (const giveBack of places ?? []) giveBack();
      throw new Error(
        partRefusedMessage(
          partLabel(kind),
          index + 1,
          params.agent,
          error instanceof Error ? error.message : String(error),
        ),
      );
    }
  }
  return admitted;
}

/** Prepares every admitted part; a refusal gives back what the parts before it took, and is thrown. */
export function prepareAll(kind: WorkflowKind, admitted: readonly AdmittedPart[]): PreparedPart[] {
  const prepared: PreparedPart[] = [];
  for (const [index, part] of admitted.entries()) {
    try {
      prepared.push(part.prepare());
    } catch (error) {
      for (const done of prepared) abandon(done);
      for (const part of admitted) part.withdraw?.();
      throw new Error(
        partRefusedMessage(
          partLabel(kind),
          index + 1,
          part.agent,
          error instanceof Error ? error.message : String(error),
        ),
      );
    }
  }
  return prepared;
}

async function runBatch(parts: readonly SubagentParams[], deps: WorkflowDeps): Promise<BlockingResult[]> {
  const admitted = await admitAll("batch", parts, {
    reserve: (count) => deps.reservePlaces(count, deps.ctx),
    admit: (params, place) => deps.admitPart(params, deps.toolCallId, deps.ctx, place),
  });
  const prepared = prepareAll("batch", admitted);
  const results: BlockingResult[] = new Array<BlockingResult>(prepared.length);
  let next = 0;
  const lane = async () => {
    while (next < prepared.length) {
      const index = next++;
      results[index] = await deps.runBlocking(
        prepared[index]!,
        deps.ctx,
        deps.signal,
        partProgress(deps, index, prepared.length),
        membership(deps, "batch", index, prepared.length),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, deps.maxConcurrent), prepared.length) }, lane));
  return results;
}

async function runBlockingWorkflow(workflow: Workflow, deps: WorkflowDeps): Promise<AgentToolResult<WorkflowDetails>> {
  const { kind, parts } = workflow;
  const finished: FinishedPart[] = [];
  // The same parts as the workflow's record keeps them: a record each, or a chain step's refusal.
  const ended: EndedPart[] = [];
  const details: SubagentResultDetails[] = [];
  const notRun: string[] = [];
  if (kind === "batch") {
    for (const result of await runBatch(parts, deps)) {
      finished.push(finishedPart(result));
      ended.push({ record: result.record });
      details.push(result.details);
    }
  } else {
    let previous = "";
    for (const [index, step] of parts.entries()) {
      const stopped = finished.length > 0 && finished.at(-1)!.status !== "succeeded";
      if (stopped || deps.signal?.aborted) {
        notRun.push(step.agent?.trim() || "no agent");
        continue;
      }
      const params = { ...step, task: withPrevious(step.task ?? "", previous) };
      let part: PreparedPart;
      try {
        part = (await deps.admitPart(params, deps.toolCallId, deps.ctx)).prepare();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (index === 0) throw new Error(partRefusedMessage(partLabel("chain"), 1, step.agent, message));
        finished.push({ agent: step.agent?.trim() || "no agent", status: "refused", text: message });
        ended.push({ refused: { agent: step.agent?.trim() || "no agent", message } });
        continue;
      }
      const result = await deps.runBlocking(
        part,
        deps.ctx,
        deps.signal,
        partProgress(deps, index, parts.length),
        membership(deps, "chain", index, parts.length),
      );
      finished.push(finishedPart(result));
      ended.push({ record: result.record });
      details.push(result.details);
      previous = limitedOutput(result.record);
    }
  }
  const allSucceeded = finished.length === parts.length && finished.every((part) => part.status === "succeeded");
  // A batch whose parts partly failed still did its work: only a batch with no success counts as an error.
  const succeeded = kind === "batch" ? finished.some((part) => part.status === "succeeded") : allSucceeded;
  const text = workflowResultText(kind, finished, notRun, deps.workflowId);
  await recordWorkflow(deps, { id: deps.workflowId, kind, parts: ended, notRun, text, finishedAt: deps.now() });
  return {
    content: [{ type: "text", text }],
    details: { kind, workflowId: deps.workflowId, status: succeeded ? "succeeded" : "failed", parts: details },
  };
}

/** A part's place in its workflow, which its record keeps. */
function membership(deps: WorkflowDeps, kind: WorkflowKind, index: number, total: number): WorkflowMembership {
  return { id: deps.workflowId, kind, index: index + 1, total };
}

/**
 * The workflow's own record, so its id finds all of it later; a write that fails (a read-only or full disk) costs
 * that and not the result, and is said on stderr. Its modules load when a blocking batch or chain ends, not with
 * the tool's part (a single dispatch never needs them).
 */
async function recordWorkflow(deps: WorkflowDeps, end: Omit<BlockingWorkflowEnd, "parentSessionId">): Promise<void> {
  const { blockingWorkflowRecord } = await import("../../workflows/blocking-workflow.ts");
  const { workflowRecordPath, writeWorkflowRecord } = await import("../../workflows/background-workflow.ts");
  const record = blockingWorkflowRecord({ ...end, parentSessionId: deps.ctx.sessionManager.getSessionId() });
  try {
    writeWorkflowRecord(agentDir(), record);
  } catch (error) {
    process.stderr.write(
      `${WARNING_PREFIX}the ${end.kind}'s record could not be written (${workflowRecordPath(agentDir(), end.id)}): ${error instanceof Error ? error.message : String(error)}; its parts keep theirs.\n`,
    );
  }
}
