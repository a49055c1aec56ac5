/**
 * A call checked before anything starts, and the texts of its cancel and message actions.
 */
import type { AgentDefinition, AgentScope, DispatchContext } from "../agents/parse.ts";
import { childTextProblem } from "../run/rpc.ts";
import { isTaskId, idForMessage } from "../shared/nesting.ts";
import type { SubagentParams } from "./schema.ts";
import { BUDGET_KEYS, budgetValueProblem, type BudgetLimits } from "../budget/limits.ts";
import { isIsolation, type Isolation } from "../worktree/worktree.ts";
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../shared/thinking.ts";
import { isSandboxLevel, invalidSandboxMessage, type SandboxLevel } from "../sandbox/levels.ts";
import {
  BLANK_TASK_MESSAGE,
  depthGateMessage,
  FORK_WITH_SESSION_MESSAGE,
  invalidIsolationMessage,
  invalidSessionIdMessage,
  missingAgentMessage,
  unknownAgentMessage,
} from "./texts.ts";
import { formatElapsed, oneLine } from "../shared/text.ts";
import type { InFlightTask } from "../delivery/envelope.ts";
import { CHILD_MODE_ENV } from "../run/stop-sequence.ts";

/*
 * Validates a `subagent` call before anything is spawned, in the spec's order: depth gate, missing or blank
 * task or agent, unknown agent, sessionId. Pure: the caller passes the depth and the discovered agents.
 */
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
  /** The call's `sandbox`: only ever makes the agent's stricter (src/config/resolve.ts). */
  sandbox?: SandboxLevel;
  /** The call's `verify`: a check command run after the agent's own, never instead (src/run/verify.ts). */
  verify?: string;
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
  if (!Array.isArray(value))
    return `Invalid tools ${JSON.stringify(value)?.slice(0, 80)}: give an array of tool names, for example ["read", "grep"].`;
  const bad = value.find((name) => typeof name !== "string" || !TOOL_NAME.test(name.trim()));
  if (bad !== undefined)
    return `Invalid tool name ${JSON.stringify(bad)?.slice(0, 80)} in tools: give plain tool names, for example ["read", "grep"].`;
  return undefined;
}

export function validateDispatch(
  params: SubagentParams,
  agents: readonly AgentDefinition[],
): Validation<DispatchRequest> {
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
  if (modelParam !== undefined && !model)
    return {
      ok: false,
      message: `Invalid model ${JSON.stringify(modelParam)?.slice(0, 80)}: give provider/id, for example "anthropic/claude-haiku-4-5", or omit model.`,
    };
  const thinkingParam: unknown = params.thinking;
  if (thinkingParam !== undefined && !isThinkingLevel(thinkingParam)) {
    return {
      ok: false,
      message: `Invalid thinking ${JSON.stringify(thinkingParam)?.slice(0, 80)}: use one of ${THINKING_LEVELS.join(", ")}, or omit thinking.`,
    };
  }
  const isolationParam: unknown = params.isolation;
  if (isolationParam !== undefined && !isIsolation(isolationParam)) {
    return { ok: false, message: invalidIsolationMessage(isolationParam) };
  }
  const sandboxParam: unknown = params.sandbox;
  if (sandboxParam !== undefined && !isSandboxLevel(sandboxParam))
    return { ok: false, message: invalidSandboxMessage(sandboxParam) };
  const verifyParam: unknown = params.verify;
  const verify = typeof verifyParam === "string" ? verifyParam.trim() : undefined;
  if (verifyParam !== undefined && !verify)
    return {
      ok: false,
      message: `Invalid verify ${JSON.stringify(verifyParam)?.slice(0, 80)}: give a shell command, for example "npm test", or omit verify.`,
    };
  return {
    ok: true,
    value: {
      ...(verify ? { verify } : {}),
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

/*
 * What the main agent reads when it cancels a background task with `action: "cancel"`: the challenge of the
 * first call (nothing changes), the confirmation of the second, and the refusals. No em dashes.
 */
export const CANCEL_NEEDS_TASK_ID =
  'action=cancel needs "taskId": the id from the dispatch receipt (`Dispatched <agent>. taskId: <id>`) of a running background task.';

/**
 * A taskId that is not a task id at all (never looked up, never used as a path). It states the rule and gives
 * no example id: a model shown one may copy it, as the sessionId error also avoids.
 */
export function cancelInvalidTaskId(taskId: string): string {
  return `"${idForMessage(taskId)}" is not a taskId this tool handed out. Pass exactly the taskId of a dispatch receipt (\`Dispatched <agent>. taskId: <id>\`) of a running background task; never make one up. Nothing was cancelled.`;
}

export function cancelUnknownTask(taskId: string): string {
  return `No background subagent task with taskId ${idForMessage(taskId)} is in flight. Check the id against your dispatch receipts; a task that already finished cannot be cancelled.`;
}

export function cancelAlreadyFinished(taskId: string, status: string): string {
  return `Task ${taskId} already finished (${status}); there is nothing to cancel. Its result is delivered as a [subagent-result] notification.`;
}

export const CANCEL_NEEDS_REASON =
  'action=cancel with confirm=true needs a non-empty "reason" saying why the task is cancelled. Nothing was cancelled.';

export interface ChallengeFacts {
  taskId: string;
  agent: string;
  task: string;
  /** Time since dispatch. */
  elapsedMs: number;
  /** Time since the child last reported anything; undefined when it never did. */
  lastProgressAgeMs?: number;
  queued: boolean;
}

export function cancelChallenge(facts: ChallengeFacts): string {
  const progress =
    facts.lastProgressAgeMs === undefined ? "none reported yet" : `${formatElapsed(facts.lastProgressAgeMs)} ago`;
  return [
    `Confirm before cancelling. Nothing has been cancelled yet.`,
    `- Task: ${facts.taskId} (${facts.agent}): ${oneLine(facts.task, 200)}`,
    `- ${facts.queued ? "Queued for" : "Running for"}: ${formatElapsed(facts.elapsedMs)}`,
    `- Last progress: ${progress}`,
    "Cancelling stops the subagent: it is asked to end its turn, then its processes are ended; only what it wrote so far and the tools it ran are kept, the rest of its work is lost. This cannot be undone.",
    `To cancel, call subagent again with action="cancel", taskId="${facts.taskId}", confirm=true and a non-empty reason. Do not cancel a task only because it takes long.`,
  ].join("\n");
}

/** The other tasks in flight at the moment a cancel is requested (the cancelled task has not ended yet). */
function inFlightNow(others: readonly InFlightTask[]): string {
  if (others.length === 0) return "No other tasks are in flight now.";
  return [
    `Other tasks in flight now: ${others.length}`,
    ...others.map((t) => `- ${t.taskId} (${t.agent}): ${oneLine(t.task, 120)}`),
  ].join("\n");
}

export function cancelRequested(taskId: string, agent: string, others: readonly InFlightTask[]): string {
  return [
    `Cancel request sent for ${taskId} (${agent}). Its cancelled result will arrive as a [subagent-result] notification.`,
    "",
    inFlightNow(others),
  ].join("\n");
}

/** The first call of a workflow cancel: what would be cancelled (nothing is yet). */
export function workflowCancelChallenge(
  kind: "batch" | "chain",
  workflowId: string,
  running: readonly InFlightTask[],
): string {
  const later = kind === "chain" ? " and the chain starts no further step" : "";
  return [
    `Confirm before cancelling. Nothing has been cancelled yet.`,
    `- ${kind === "chain" ? "Chain" : "Batch"} ${workflowId}, parts in flight: ${running.length}`,
    ...running.map((t) => `- ${t.taskId} (${t.agent}): ${oneLine(t.task, 120)}`),
    `Cancelling stops every part in flight${later}; what they wrote so far is kept in the one [subagent-result] of the ${kind}. To cancel one part only, pass its own taskId. This cannot be undone.`,
    `To cancel, call subagent again with action="cancel", taskId="${workflowId}", confirm=true and a non-empty reason.`,
  ].join("\n");
}

export function workflowCancelRequested(kind: "batch" | "chain", workflowId: string, cancelled: number): string {
  return `Cancel request sent for ${cancelled} ${cancelled === 1 ? "part" : "parts"} of ${kind} ${workflowId}. Its one [subagent-result] arrives once every part has ended.`;
}

/*
 * What the main agent reads after `action: "message"`: a one-line acknowledgement, or a refusal that says what
 * to do instead. No em dashes.
 */
export const MESSAGE_NEEDS_TASK_ID =
  'action=message needs "taskId": the id from the dispatch receipt (`Dispatched <agent>. taskId: <id>`) of a queued or running background task.';

export const MESSAGE_NEEDS_TEXT =
  'action=message needs a non-empty "message": the text to send to the subagent. Nothing was sent.';

export const MESSAGE_IN_SYNC_MODE =
  "action=message reaches background subagent tasks, which exist only in the interactive TUI. Here each delegation runs synchronously inside its subagent call and has already ended when you can send anything; to continue one, dispatch again with its sessionId.";

export function messageSteered(taskId: string, agent: string): string {
  return `Message sent to ${taskId} (${agent}); it reaches the subagent before its next model call.`;
}

export function messageQueued(taskId: string, agent: string): string {
  return `Message added to queued task ${taskId} (${agent}); the subagent reads it with its task when it starts.`;
}

export function messageToFinished(taskId: string, status: string | undefined): string {
  const how = status ? `already finished (${status})` : "has already finished";
  return `Task ${taskId} ${how}; a message cannot reach it. To continue that subagent's conversation, dispatch again with sessionId="${taskId}" and your message as the task. Nothing was sent.`;
}

export function messageToUnknown(taskId: string): string {
  return `No background subagent task with taskId ${taskId} is in flight. Check the id against your dispatch receipts. Nothing was sent.`;
}

export function messageLimitReached(taskId: string, agent: string, max: number): string {
  return `Task ${taskId} (${agent}) has already received ${max} messages from you, the most one task takes; this one was not sent. Wait for its result, which arrives by itself, or cancel it (action="cancel") and dispatch again with everything it needs in the task.`;
}

export function messageUnsupported(taskId: string): string {
  return `Task ${taskId} runs as a JSON child (${CHILD_MODE_ENV}=json), which cannot receive messages. Nothing was sent.`;
}
