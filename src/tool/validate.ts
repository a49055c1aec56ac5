/**
 * Validates a `subagent` call before anything is spawned, in the spec's order: depth gate, missing or blank
 * task or agent, unknown agent, sessionId. Pure: the caller passes the depth and the discovered agents.
 */
import type { AgentDefinition, AgentScope } from "../agents/types.ts";
import { childTextProblem } from "../run/task-text.ts";
import { isTaskId } from "../tasks/task-id.ts";
import type { SubagentParams } from "./schema.ts";
import { isIsolation, type Isolation } from "../worktree/types.ts";
import {
  BLANK_TASK_MESSAGE,
  depthGateMessage,
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
  agentScope: AgentScope;
  confirmProjectAgents: boolean;
  /** `worktree`: the child runs in its own git worktree (the call's value, else the agent's, else none). */
  isolation?: Isolation;
  /** True when the call itself named an isolation (a resume must then honour it or refuse). */
  isolationRequested?: boolean;
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
  const isolationParam: unknown = params.isolation;
  if (isolationParam !== undefined && !isIsolation(isolationParam)) {
    return { ok: false, message: invalidIsolationMessage(isolationParam) };
  }
  return {
    ok: true,
    value: {
      kind: "dispatch",
      agent,
      task,
      sessionId,
      agentScope: params.agentScope ?? "both",
      confirmProjectAgents: params.confirmProjectAgents ?? false,
      isolation: isolationParam ?? agent.isolation ?? "none",
      isolationRequested: isolationParam === "worktree",
    },
  };
}
