import { Type, type Static, type TUnsafe } from "typebox";

/**
 * A string restricted to `values`, as a plain JSON Schema `enum` (the form every provider accepts; the same
 * schema pi-ai's StringEnum builds). Made here so the light entry does not load pi-ai's extension view.
 */
function stringEnum<const T extends readonly string[]>(values: T, options: { description: string }): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], description: options.description });
}

/**
 * The `subagent` tool's parameters. Everything is optional at the schema level so that a missing field gets
 * our own, actionable message instead of a generic schema error.
 */
export const subagentParameters = Type.Object({
  action: Type.Optional(
    stringEnum(["dispatch", "cancel", "message"] as const, {
      description: "dispatch (default) starts a subagent; cancel stops a running background task; message sends text to a queued or running background task",
    }),
  ),
  agent: Type.Optional(Type.String({ description: "Name of the agent to dispatch (see Available Subagents)" })),
  task: Type.Optional(Type.String({ description: "The complete, self-contained task for the subagent" })),
  taskId: Type.Optional(Type.String({ description: "action=cancel or message: the taskId of the running task" })),
  message: Type.Optional(Type.String({ description: "action=message: the text to send to the running subagent (it reads it before its next step)" })),
  confirm: Type.Optional(Type.Boolean({ description: "action=cancel: true on the second call to actually cancel" })),
  reason: Type.Optional(Type.String({ description: "action=cancel: why the task is cancelled (required with confirm)" })),
  sessionId: Type.Optional(
    Type.String({ description: "Resume an earlier subagent session: an id an earlier subagent call returned; omit for a fresh session" }),
  ),
  // Per-call budgets (issue 10): a call can only lower the agent's configured limits.
  maxTurns: Type.Optional(Type.Integer({ minimum: 1, description: "Stop the subagent after this many model turns (can only lower the agent's configured limit)" })),
  maxTokens: Type.Optional(
    Type.Integer({ minimum: 1, description: "Stop the subagent once its input+output tokens reach this (can only lower the configured limit)" }),
  ),
  maxCost: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Stop the subagent once its cost reaches this, in the model's currency (can only lower the configured limit)" })),
  context: Type.Optional(
    stringEnum(["fresh", "fork"] as const, {
      description: "fresh (default) starts the subagent with only its task; fork gives it a copy of this conversation before the task",
    }),
  ),
  isolation: Type.Optional(
    stringEnum(["none", "worktree"] as const, {
      description:
        "worktree runs the subagent in its own git worktree of HEAD on branch subagent/<taskId>, so its edits never touch the working tree; its changes come back as that branch (default: the agent's isolation, else none)",
    }),
  ),
  sandbox: Type.Optional(
    stringEnum(["off", "workspace-write", "read-only"] as const, {
      description:
        "Run the subagent in an OS sandbox: read-only (it can write nothing of the user's) or workspace-write (only its working folder); can only make the agent's own sandbox stricter, never looser",
    }),
  ),
  tools: Type.Optional(
    Type.Array(Type.String(), {
      description: "Narrow the agent's tools for this call (only tools it would have anyway; never adds one)",
    }),
  ),
  agentScope: Type.Optional(
    stringEnum(["user", "project", "both"] as const, { description: "Which agent folders to use besides the built-in agents (default both)" }),
  ),
  confirmProjectAgents: Type.Optional(
    Type.Boolean({ description: "Ask the user before running an agent defined in the project's .pi/agents (TUI only; default false)" }),
  ),
});

export type SubagentParams = Static<typeof subagentParameters>;
