/**
 * Validates a `subagent` call before anything is spawned, in the spec's order: depth gate, missing or blank
 * task or agent, unknown agent, sessionId. Pure: the caller passes the depth and the discovered agents.
 */
import type { AgentDefinition, AgentScope } from "../agents/types.ts";
import { childTextProblem } from "../run/task-text.ts";
import { isTaskId } from "../tasks/task-id.ts";
import type { SubagentParams } from "./schema.ts";
import { BUDGET_KEYS, budgetValueProblem, type BudgetLimits } from "../budget/limits.ts";
import {
  BLANK_TASK_MESSAGE,
  depthGateMessage,
  invalidSessionIdMessage,
  missingAgentMessage,
  unknownAgentMessage,
} from "./texts.ts";

export interface DispatchRequest {
  kind: "dispatch";
  agent: AgentDefinition;
  task: string;
  sessionId?: string;
  agentScope: AgentScope;
  confirmProjectAgents: boolean;
  /** The call's own budget limits (applied to the configured ones when the dispatch is prepared). */
  budget?: BudgetLimits;
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

export function checkDepth(depth: number): Validation<void> {
  return depth >= 1 ? { ok: false, message: depthGateMessage(depth) } : { ok: true, value: undefined };
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
    budget[key] = raw as number;
  }
  return {
    ok: true,
    value: {
      kind: "dispatch",
      ...(Object.keys(budget).length > 0 ? { budget } : {}),
      agent,
      task,
      sessionId,
      agentScope: params.agentScope ?? "both",
      confirmProjectAgents: params.confirmProjectAgents ?? false,
    },
  };
}
