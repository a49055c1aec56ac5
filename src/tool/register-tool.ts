/**
 * Registers the `subagent` tool with pi and routes each call: the depth gate, then cancel or dispatch;
 * dispatch validates, discovers the agent, resolves its config, prepares the child, and then either blocks
 * until it finishes (print/JSON/RPC) or hands it to the background dispatcher (interactive TUI).
 */
import { homedir } from "node:os";
import type { AgentToolResult, AgentToolUpdateCallback, ExtensionAPI, ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";
import { discoverAgents } from "../agents/discover.ts";
import { formatAgentWarning, reportWarningsOnce, type WarningSink } from "../agents/warnings.ts";
import { loadConfig } from "../config/load.ts";
import { currentModelRef } from "../config/resolve.ts";
import { DEFAULT_MAX_DEPTH, readMaxDepthEnv, readSubagentDepth } from "../shared/depth.js";
import { resolveDispatchLimits } from "../config/dispatch-limits.ts";
import type { ForkedHistory } from "../run/fork-history.ts";
import { detectAppMode, isAsyncDispatchMode, type AppMode } from "../shared/mode.js";
import { agentDir } from "../shared/paths.js";
import { readRunSettings, runSettingsWarnings } from "../shared/run-settings.ts";
import { readEnvBudget } from "../budget/env-budget.ts";
import { mayUseWorktree, noWorktree, prepareDispatch, type PreparedRun } from "./prepare-dispatch.ts";
import { loadOnce } from "../shared/load-once.js";
import { MESSAGE_IN_SYNC_MODE } from "./message-texts.ts";
import { runSync } from "./run-sync.ts";
import { subagentParameters, type SubagentParams } from "./schema.ts";
import {
  NO_TASKS_TO_CANCEL_IN_SYNC_MODE,
  projectAgentDeclinedMessage,
  SUBAGENT_TOOL_TEXTS,
  TOOL_NAME,
  unknownActionMessage,
} from "./texts.js";
import { checkDepth, validateDispatch } from "./validate.ts";
import type { TaskRecord } from "../tasks/types.ts";
import type { FanOutGate } from "../fanout/fan-out-gate.ts";
import { resolveFanOutLimits } from "../fanout/limits.ts";

// Loaded only by the dispatches that need them (see ADVANCED.md, "Supported pis and loading cost").
const loadForkHistory = loadOnce(() => import("../run/fork-history.ts"));
const loadForkSource = loadOnce(() => import("./fork-source.ts"));
const loadTakeWorktree = loadOnce(() => import("./take-worktree.ts"));

/** What the background (TUI) path provides; absent until it is wired. */
export interface BackgroundDispatcher {
  dispatch(prepared: PreparedRun, ctx: ExtensionContext): AgentToolResult<unknown>;
  cancel(params: SubagentParams, ctx: ExtensionContext): AgentToolResult<unknown>;
  message(params: SubagentParams, ctx: ExtensionContext): AgentToolResult<unknown>;
}

/** How the tool's row is drawn in the TUI (provided by the UI part); pi's default rendering when absent. */
export type SubagentToolRenderers = Pick<ToolDefinition<typeof subagentParameters>, "renderCall" | "renderResult">;

export interface SubagentToolOptions {
  background?: BackgroundDispatcher;
  renderers?: SubagentToolRenderers;
  /** How pi runs (default: read from this process, as pi decides it). */
  appMode?: AppMode;
  /** The parent's command line, for the child's pi entry and `-e` flags (default: `process.argv`). */
  argv?: readonly string[];
  /** Caps how many tasks a run of the main agent dispatches and how many are in flight (absent: no caps). */
  fanOutGate?: FanOutGate;
  /** Hears of every blocking run's record once it ended (the session ledger). */
  onRecorded?: (record: TaskRecord) => void;
}

type ToolResult = AgentToolResult<unknown>;

function textResult(text: string, details: unknown = undefined): ToolResult {
  return { content: [{ type: "text", text }], details };
}

function warningSink(ctx: ExtensionContext): WarningSink {
  return ctx.hasUI ? { hasUI: true, ui: ctx.ui } : { hasUI: false, ui: { notify: () => {} } };
}

export function registerSubagentTool(pi: ExtensionAPI, options: SubagentToolOptions = {}): void {
  const appMode = options.appMode ?? detectAppMode();
  const argv = options.argv ?? process.argv;

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

    const action: unknown = params.action ?? "dispatch";
    if (action !== "dispatch" && action !== "cancel" && action !== "message") throw new Error(unknownActionMessage(action));
    if (action === "cancel") {
      if (!background) return textResult(NO_TASKS_TO_CANCEL_IN_SYNC_MODE);
      return background.cancel(params, ctx);
    }
    if (action === "message") {
      if (!background) return textResult(MESSAGE_IN_SYNC_MODE);
      return background.message(params, ctx);
    }

    const discovery = discoverAgents({ cwd: ctx.cwd, scope: params.agentScope ?? "both" });
    reportWarningsOnce(discovery.warnings.map(formatAgentWarning), warningSink(ctx));
    const validation = validateDispatch(params, discovery.agents);
    if (!validation.ok) throw new Error(validation.message);
    const request = validation.value;

    if (request.confirmProjectAgents && request.agent.source === "project" && ctx.hasUI) {
      const approved = await ctx.ui.confirm(
        "Run a project agent?",
        `The model wants to run "${request.agent.name}", defined in this project at ${request.agent.filePath}.`,
      );
      if (!approved) throw new Error(projectAgentDeclinedMessage(request.agent.name));
    }

    const config = loadConfig({ cwd: ctx.cwd });
    const limits = resolveDispatchLimits(process.env, config);
    reportWarningsOnce([...config.warnings, ...runSettingsWarnings(), ...readEnvBudget().warnings, ...limits.warnings], warningSink(ctx));
    if (options.fanOutGate) {
      const fanOut = resolveFanOutLimits(process.env, { user: config.user.fanOut, project: config.project.fanOut });
      reportWarningsOnce(fanOut.warnings, warningSink(ctx));
      // Only the TUI asks the person; elsewhere nobody could answer.
      const refusal = await options.fanOutGate.admit(fanOut.limits, ctx, background !== undefined);
      if (refusal) throw new Error(refusal);
    }
    let forkedHistory: ForkedHistory | undefined;
    if (request.context === "fork") {
      // Loaded for a fork only, as the worktree code below is for a dispatch that may use a worktree.
      const [{ buildForkedHistory }, { forkedConversation }] = await Promise.all([loadForkHistory(), loadForkSource()]);
      const fork = buildForkedHistory(forkedConversation(ctx.sessionManager), toolCallId, limits.forkMaxChars.value);
      if (!fork.ok) throw new Error(fork.message);
      forkedHistory = fork.history;
    }
    const dir = agentDir();
    const takeWorktree = mayUseWorktree(request) ? (await loadTakeWorktree()).takeWorktree : noWorktree;
    const prepared = prepareDispatch(
      request,
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
        takeWorktree,
      },
      config,
    );
    if (!prepared.ok) throw new Error(prepared.message);
    reportWarningsOnce(prepared.run.notes.map((note) => `${request.agent.name}: ${note}`), warningSink(ctx));

    if (background) return background.dispatch(prepared.run, ctx);

    const blocking = (run: () => ReturnType<typeof runSync>) => (options.fanOutGate ? options.fanOutGate.blockingRun(run) : run());
    const result = await blocking(() => runSync(prepared.run, {
      agentDir: dir,
      settings: readRunSettings(),
      signal,
      parentSessionId: ctx.sessionManager.getSessionId(),
      onProgress: (text, progress) => onUpdate?.({ content: [{ type: "text", text }], details: { progress } }),
    }));
    options.onRecorded?.(result.record);
    return textResult(result.text, result.details);
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
