/**
 * Validates a `subagent` call before anything is spawned, in the spec's order: depth gate, missing or blank
 * task or agent, unknown agent, sessionId. Pure: the caller passes the depth and the discovered agents.
 */
import type { AgentDefinition, AgentScope, DispatchContext } from "../agents/types.ts";
import { childTextProblem } from "../run/task-text.ts";
import { isTaskId } from "../shared/task-id.ts";
import type { SubagentParams } from "./schema.ts";
import { BUDGET_KEYS, budgetValueProblem } from "../budget/limits.ts";
import type { BudgetLimits } from "../budget/limits.ts";
import { isIsolation } from "../worktree/types.ts";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";
import type { Isolation } from "../worktree/types.ts";
import { isSandboxLevel } from "../sandbox/levels.ts";
import type { SandboxLevel } from "../sandbox/levels.ts";
import { invalidSandboxMessage } from "../sandbox/texts.ts";
import {
  BLANK_TASK_MESSAGE,
  depthGateMessage,
  FORK_WITH_SESSION_MESSAGE,
  invalidIsolationMessage,
  invalidSessionIdMessage,
  missingAgentMessage,
  unknownAgentMessage,
} from "./texts.ts";

export interface DispatchRequest {
  kind: "dispatch";
  agent: AgentDefinition;
  task: string;
  sessionId?: string;
  /**
   * What the child starts from: the call's `context`, else the agent's, else
   * `fresh` (always `fresh` on resume).
   */
  context?: DispatchContext;
  agentScope: AgentScope;
  confirmProjectAgents: boolean;
  /** The call's own `model` (`provider/id`) and `thinking`, above every config layer for this task only. */
  model?: string;
  thinking?: ThinkingLevel;
  /** The call's `tools`: narrows the agent's, never widens them (src/authority/tool-ceiling.ts). */
  tools?: string[];
  /**
   * The call's own budget limits (applied to the configured ones when the dispatch
   * is prepared).
   */
  budget?: BudgetLimits;
  /**
   * `worktree`: the child runs in its own git worktree (the call's value, else the
   * agent's, else none).
   */
  isolation?: Isolation;
  /**
   * True when the call itself named an isolation (a resume must then honour
   * it or refuse).
   */
  isolationRequested?: boolean;
  /** The call's `sandbox`: only ever makes the agent's stricter (src/config/resolve-sandbox.ts). */
  sandbox?: SandboxLevel;
}

export interface CancelRequest {
  kind: "cancel";
  taskId: string;
  confirm: boolean;
  reason?: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string };

/** `explore (builtin), coder (project)`, or `none` when no agent exists. */
export function describeAvailable(agents: readonly AgentDefinition[]): string {
  if (agents.length === 0) return "none (add agent files under .pi/agents/ or the user agents folder)";
  return agents.map((agent) => `${agent.name} (${agent.source})`).join(", ");
}

/** A process at `depth` may dispatch only while it is above the tree's limit (`maxDepth`, default 1). */
export function checkDepth(depth: number, maxDepth: number = 1): Validation<void> {
  return depth >= maxDepth ? { ok: false, message: depthGateMessage(depth, maxDepth) } : { ok: true, value: undefined };
}

/** A tool name pi could take in `--tools`: letters, digits, `_`, `-`, `.`, `:` (no comma, no space). */
const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

function callToolsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return `Invalid tools ${JSON.stringify(value)?.slice(0, 80)}: give an array of tool names, for example ["read", "grep"].`;
  const bad = value.find((name) => typeof name !== "string" || !TOOL_NAME.test(name.trim()));
  if (bad !== undefined) return `Invalid tool name ${JSON.stringify(bad)?.slice(0, 80)} in tools: give plain tool names, for example ["read", "grep"].`;
  return undefined;
}

export function validateDispatch(params: SubagentParams, agents: readonly AgentDefinition[]): Validation<DispatchRequest> {
  const task = params.task ?? "";
  if (!task.trim()) return { ok: false, message: BLANK_TASK_MESSAGE };
  const textProblem = childTextProblem(task, "task");
  if (textProblem) return { ok: false, message: textProblem };
  const name = (params.agent ?? "").trim();
  if (!name) return { ok: false, message: missingAgentMessage(describeAvailable(agents)) };
  const agent = agents.find((candidate) => candidate.name === name);
  if (!agent) return { ok: false, message: unknownAgentMessage(name, describeAvailable(agents)) };
  const sessionId = params.sessionId?.trim();
  // A blank sessionId is refused too: silently starting a fresh session would lose the one the model meant.
  if (sessionId !== undefined && !isTaskId(sessionId)) {
    return { ok: false, message: invalidSessionIdMessage(params.sessionId ?? "") };
  }
  const budget: BudgetLimits = {};
  for (const key of BUDGET_KEYS) {
    const raw: unknown = params[key];
    if (raw === undefined) continue;
    const problem = budgetValueProblem(key, typeof raw === "number" ? raw : NaN);
    if (problem) return { ok: false, message: `Invalid ${key}: ${problem} (got ${JSON.stringify(raw)}).` };
    budget[key] = (raw as number);
  }
  // A resumed session already has its history; only an explicit fork request conflicts with that.
  if (sessionId !== undefined && params.context === "fork") return { ok: false, message: FORK_WITH_SESSION_MESSAGE };
  const context: DispatchContext = sessionId !== undefined ? "fresh" : (params.context ?? agent.context ?? "fresh");
  const toolsParam: unknown = params.tools;
  let tools: string[] | undefined;
  if (toolsParam !== undefined) {
    const problem = callToolsProblem(toolsParam);
    if (problem) return { ok: false, message: problem };
    tools = (toolsParam as string[]).map((name) => name.trim());
  }
  const modelParam: unknown = params.model;
  const model = typeof modelParam === "string" ? modelParam.trim() : undefined;
  if (modelParam !== undefined && !model) return { ok: false, message: `Invalid model ${JSON.stringify(modelParam)?.slice(0, 80)}: give provider/id, for example "anthropic/claude-haiku-4-5", or omit model.` };
  const thinkingParam: unknown = params.thinking;
  if (thinkingParam !== undefined && !isThinkingLevel(thinkingParam)) {
    return { ok: false, message: `Invalid thinking ${JSON.stringify(thinkingParam)?.slice(0, 80)}: use one of ${THINKING_LEVELS.join(", ")}, or omit thinking.` };
  }
  const isolationParam: unknown = params.isolation;
  if (isolationParam !== undefined && !isIsolation(isolationParam)) {
    return { ok: false, message: invalidIsolationMessage(isolationParam) };
  }
  const sandboxParam: unknown = params.sandbox;
  if (sandboxParam !== undefined && !isSandboxLevel(sandboxParam)) return { ok: false, message: invalidSandboxMessage(sandboxParam) };
  return {
    ok: true,
    value: {
      ...(sandboxParam !== undefined ? { sandbox: sandboxParam } : {}),
      kind: "dispatch",
      ...(Object.keys(budget).length > 0 ? { budget } : {}),
      agent,
      task,
      sessionId,
      context,
      agentScope: params.agentScope ?? "both",
      confirmProjectAgents: params.confirmProjectAgents ?? false,
      ...(tools ? { tools } : {}),
      ...(model ? { model } : {}),
      ...(thinkingParam !== undefined ? { thinking: thinkingParam } : {}),
      isolation: isolationParam ?? agent.isolation ?? "none",
      isolationRequested: isolationParam === "worktree",
    },
  };
}
