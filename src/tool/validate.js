// @ts-check
/**
 * Validates a `subagent` call before anything is spawned, in the spec's order: depth gate, missing or blank
 * task or agent, unknown agent, sessionId. Pure: the caller passes the depth and the discovered agents.
 */
/** @import { AgentDefinition, AgentScope, DispatchContext } from "../agents/types.ts" */
import { childTextProblem } from "../run/task-text.js";
import { isTaskId } from "../tasks/task-id.js";
/** @import { SubagentParams } from "./schema.ts" */
import { BUDGET_KEYS, budgetValueProblem } from "../budget/limits.js";
/** @import { BudgetLimits } from "../budget/limits.js" */
import { isIsolation } from "../worktree/types.js";
/** @import { Isolation } from "../worktree/types.js" */
import {
  BLANK_TASK_MESSAGE,
  depthGateMessage,
  FORK_WITH_SESSION_MESSAGE,
  invalidIsolationMessage,
  invalidSessionIdMessage,
  missingAgentMessage,
  unknownAgentMessage,
} from "./texts.js";

/**
 * @typedef {object} DispatchRequest
 * @property {"dispatch"} kind
 * @property {AgentDefinition} agent
 * @property {string} task
 * @property {string} [sessionId]
 * @property {DispatchContext} [context] What the child starts from: the call's `context`, else the agent's, else
 *   `fresh` (always `fresh` on resume).
 * @property {AgentScope} agentScope
 * @property {boolean} confirmProjectAgents
 * @property {BudgetLimits} [budget] The call's own budget limits (applied to the configured ones when the dispatch
 *   is prepared).
 * @property {Isolation} [isolation] `worktree`: the child runs in its own git worktree (the call's value, else the
 *   agent's, else none).
 * @property {boolean} [isolationRequested] True when the call itself named an isolation (a resume must then honour
 *   it or refuse).
 */

/**
 * @typedef {object} CancelRequest
 * @property {"cancel"} kind
 * @property {string} taskId
 * @property {boolean} confirm
 * @property {string} [reason]
 */

/**
 * @template T
 * @typedef {{ ok: true; value: T } | { ok: false; message: string }} Validation
 */

/**
 * `explore (builtin), coder (project)`, or `none` when no agent exists.
 * @param {readonly AgentDefinition[]} agents
 * @returns {string}
 */
export function describeAvailable(agents) {
  if (agents.length === 0) return "none (add agent files under .pi/agents/ or the user agents folder)";
  return agents.map((agent) => `${agent.name} (${agent.source})`).join(", ");
}

/**
 * A process at `depth` may dispatch only while it is above the tree's limit (`maxDepth`, default 1).
 * @param {number} depth
 * @param {number} [maxDepth=1]
 * @returns {Validation<void>}
 */
export function checkDepth(depth, maxDepth = 1) {
  return depth >= maxDepth ? { ok: false, message: depthGateMessage(depth, maxDepth) } : { ok: true, value: undefined };
}

/**
 * @param {SubagentParams} params
 * @param {readonly AgentDefinition[]} agents
 * @returns {Validation<DispatchRequest>}
 */
export function validateDispatch(params, agents) {
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
  /** @type {BudgetLimits} */
  const budget = {};
  for (const key of BUDGET_KEYS) {
    /** @type {unknown} */
    const raw = params[key];
    if (raw === undefined) continue;
    const problem = budgetValueProblem(key, typeof raw === "number" ? raw : NaN);
    if (problem) return { ok: false, message: `Invalid ${key}: ${problem} (got ${JSON.stringify(raw)}).` };
    budget[key] = /** @type {number} */ (raw);
  }
  // A resumed session already has its history; only an explicit fork request conflicts with that.
  if (sessionId !== undefined && params.context === "fork") return { ok: false, message: FORK_WITH_SESSION_MESSAGE };
  /** @type {DispatchContext} */
  const context = sessionId !== undefined ? "fresh" : (params.context ?? agent.context ?? "fresh");
  /** @type {unknown} */
  const isolationParam = params.isolation;
  if (isolationParam !== undefined && !isIsolation(isolationParam)) {
    return { ok: false, message: invalidIsolationMessage(isolationParam) };
  }
  return {
    ok: true,
    value: {
      kind: "dispatch",
      ...(Object.keys(budget).length > 0 ? { budget } : {}),
      agent,
      task,
      sessionId,
      context,
      agentScope: params.agentScope ?? "both",
      confirmProjectAgents: params.confirmProjectAgents ?? false,
      isolation: isolationParam ?? agent.isolation ?? "none",
      isolationRequested: isolationParam === "worktree",
    },
  };
}
