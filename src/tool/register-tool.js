// @ts-check
/**
 * Registers the `subagent` tool with pi and routes each call: the depth gate, then cancel or dispatch;
 * dispatch validates, discovers the agent, resolves its config, prepares the child, and then either blocks
 * until it finishes (print/JSON/RPC) or hands it to the background dispatcher (interactive TUI).
 *
 * Node loads this module itself (ADVANCED.md, "Modules Node loads itself"), so what comes from pi's packages (the
 * tool's TypeBox schema, pi's session-context builder for a fork) is handed over by the caller as `ToolPiParts`.
 */
import { homedir } from "node:os";
import { discoverAgents } from "../agents/discover.js";
import { formatAgentWarning, reportWarningsOnce } from "../agents/warnings.js";
import { loadConfig } from "../config/load.js";
import { currentModelRef } from "../config/resolve.js";
import { DEFAULT_MAX_DEPTH, readMaxDepthEnv, readSubagentDepth } from "../shared/depth.js";
import { resolveDispatchLimits } from "../config/dispatch-limits.js";
import { detectAppMode, isAsyncDispatchMode } from "../shared/mode.js";
import { agentDir } from "../shared/paths.js";
import { readRunSettings, runSettingsWarnings } from "../shared/run-settings.js";
import { readEnvBudget } from "../budget/env-budget.js";
import { mayUseWorktree, noWorktree, prepareDispatch } from "./prepare-dispatch.js";
import { loadOnce } from "../shared/load-once.js";
import { MESSAGE_IN_SYNC_MODE } from "./message-texts.js";
import { runSync } from "./run-sync.js";
import {
  NO_TASKS_TO_CANCEL_IN_SYNC_MODE,
  projectAgentDeclinedMessage,
  SUBAGENT_TOOL_TEXTS,
  TOOL_NAME,
  unknownActionMessage,
} from "./texts.js";
import { checkDepth, validateDispatch } from "./validate.js";
import { resolveFanOutLimits } from "../fanout/limits.js";
/** @import { AgentToolResult, AgentToolUpdateCallback, ExtensionAPI, ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent" */
/** @import { WarningSink } from "../agents/warnings.js" */
/** @import { ForkedHistory } from "../run/fork-history.js" */
/** @import { AppMode } from "../shared/mode.js" */
/** @import { PreparedRun } from "./prepare-dispatch.js" */
/** @import { SubagentParams, subagentParameters } from "./schema.ts" */
/** @import { TaskRecord } from "../tasks/types.ts" */
/** @import { FanOutGate } from "../fanout/fan-out-gate.js" */

// Loaded only by the dispatches that need them (see ADVANCED.md, "Supported pis and loading cost").
const loadForkHistory = loadOnce(() => import("../run/fork-history.js"));
const loadTakeWorktree = loadOnce(() => import("./take-worktree.js"));

/**
 * What the tool needs from pi's own packages, which Node cannot resolve for this module: handed over by the
 * TypeScript that pi's loader runs (src/tool/pi-parts.ts).
 * @typedef {object} ToolPiParts
 * @property {typeof subagentParameters} parameters The tool's parameter schema (src/tool/schema.ts, TypeBox).
 * @property {() => Promise<typeof import("./fork-source.ts")>} loadForkSource The main agent's conversation as a
 *   fork copies it (src/tool/fork-source.ts, through pi's `buildSessionContext`); loaded for a fork only.
 */

/**
 * What the background (TUI) path provides; absent until it is wired.
 * @typedef {object} BackgroundDispatcher
 * @property {(prepared: PreparedRun, ctx: ExtensionContext) => AgentToolResult<unknown>} dispatch
 * @property {(params: SubagentParams, ctx: ExtensionContext) => AgentToolResult<unknown>} cancel
 * @property {(params: SubagentParams, ctx: ExtensionContext) => AgentToolResult<unknown>} message
 */

/**
 * How the tool's row is drawn in the TUI (provided by the UI part); pi's default rendering when absent.
 * @typedef {Pick<ToolDefinition<typeof subagentParameters>, "renderCall" | "renderResult">} SubagentToolRenderers
 */

/**
 * @typedef {object} SubagentToolOptions
 * @property {BackgroundDispatcher} [background]
 * @property {SubagentToolRenderers} [renderers]
 * @property {AppMode} [appMode] How pi runs (default: read from this process, as pi decides it).
 * @property {readonly string[]} [argv] The parent's command line, for the child's pi entry and `-e` flags (default:
 *   `process.argv`).
 * @property {FanOutGate} [fanOutGate] Caps how many tasks a run of the main agent dispatches and how many are in
 *   flight (absent: no caps).
 * @property {(record: TaskRecord) => void} [onRecorded] Hears of every blocking run's record once it ended (the
 *   session ledger).
 */

/** @typedef {AgentToolResult<unknown>} ToolResult */

/**
 * @param {string} text
 * @param {unknown} [details]
 * @returns {ToolResult}
 */
function textResult(text, details = undefined) {
  return { content: [{ type: "text", text }], details };
}

/**
 * @param {ExtensionContext} ctx
 * @returns {WarningSink}
 */
function warningSink(ctx) {
  return ctx.hasUI ? { hasUI: true, ui: ctx.ui } : { hasUI: false, ui: { notify: () => {} } };
}

/**
 * @param {ExtensionAPI} pi
 * @param {ToolPiParts} piParts
 * @param {SubagentToolOptions} [options]
 * @returns {void}
 */
export function registerSubagentTool(pi, piParts, options = {}) {
  const appMode = options.appMode ?? detectAppMode();
  const argv = options.argv ?? process.argv;

  /**
   * @param {string} toolCallId
   * @param {SubagentParams} params
   * @param {AbortSignal | undefined} signal
   * @param {AgentToolUpdateCallback<unknown> | undefined} onUpdate
   * @param {ExtensionContext} ctx
   * @returns {Promise<ToolResult>}
   */
  const execute = async (toolCallId, params, signal, onUpdate, ctx) => {
    // A child's limit is in its environment (its parent wrote it); the main agent (depth 0) may always dispatch.
    const depthCheck = checkDepth(readSubagentDepth(), readMaxDepthEnv() ?? DEFAULT_MAX_DEPTH);
    if (!depthCheck.ok) throw new Error(depthCheck.message);
    const background = isAsyncDispatchMode(ctx.hasUI, appMode) ? options.background : undefined;

    const action = /** @type {unknown} */ (params.action ?? "dispatch");
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
    /** @type {ForkedHistory | undefined} */
    let forkedHistory;
    if (request.context === "fork") {
      // Loaded for a fork only, as the worktree code below is for a dispatch that may use a worktree.
      const [{ buildForkedHistory }, { forkedConversation }] = await Promise.all([loadForkHistory(), piParts.loadForkSource()]);
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

    /** @param {() => ReturnType<typeof runSync>} run */
    const blocking = (run) => (options.fanOutGate ? options.fanOutGate.blockingRun(run) : run());
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
    parameters: piParts.parameters,
    execute,
    ...options.renderers,
  });

  // pi marks a tool result as an error only when execute throws, which would drop `details`; a run that did not
  // succeed keeps its structured details and is flagged as an error here instead.
  pi.on("tool_result", (event) => {
    if (event.toolName !== TOOL_NAME) return undefined;
    const details = /** @type {{ status?: string } | undefined} */ (event.details);
    if (details && typeof details.status === "string" && details.status !== "succeeded") return { isError: true };
    return undefined;
  });
}
