import { Type, type Static, type TUnsafe } from "typebox";
import { THINKING_LEVELS } from "../shared/thinking.ts";

/**
 * A string restricted to `values`, as a plain JSON Schema `enum` (the form every provider accepts; the same
 * schema pi-ai's StringEnum builds). Made here so the light entry does not load pi-ai's extension view.
 */
function stringEnum<const T extends readonly string[]>(
  values: T,
  options: { description: string },
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], description: options.description });
}

/**
 * One part of a batch (`tasks`) or one step of a chain (`chain`). Only `agent` and `task` are in the schema (the
 * tool definition, sent with every request, stays small); an entry may carry the other per-task fields of a
 * single call (model, thinking, context, isolation, tools, budgets), which pass through and are validated as a
 * single call's are.
 */
const workflowPart = Type.Object({ agent: Type.String(), task: Type.String() });

/** A part as the tool reads it: `agent`, `task` and any per-task field of a single call. */
export type WorkflowPart = Static<typeof workflowPart> &
  Partial<
    Pick<
      SchemaParams,
      "model" | "thinking" | "context" | "isolation" | "tools" | "maxTurns" | "maxTokens" | "maxCost" | "verify"
    >
  >;

/**
 * The `subagent` tool's parameters. Everything is optional at the schema level so that a missing field gets
 * our own, actionable message instead of a generic schema error.
 */
export const subagentParameters = Type.Object({
  action: Type.Optional(
    stringEnum(["dispatch", "cancel", "message", "merge"] as const, {
      description: "dispatch (default), cancel, message or merge (see the description)",
    }),
  ),
  agent: Type.Optional(Type.String({ description: "An agent from Available Subagents" })),
  task: Type.Optional(Type.String({ description: "The whole, self-contained task" })),
  taskId: Type.Optional(Type.String({ description: "cancel, message, merge: the task" })),
  message: Type.Optional(Type.String({ description: "message: the text to send" })),
  confirm: Type.Optional(Type.Boolean({ description: "cancel, merge: true on the second call" })),
  reason: Type.Optional(Type.String({ description: "cancel: why (with confirm)" })),
  sessionId: Type.Optional(Type.String({ description: "Resume a session this tool returned" })),
  // Per-call budgets (issue 10): a call can only lower the agent's configured limits.
  maxTurns: Type.Optional(Type.Integer({ minimum: 1, description: "Turn budget (only lowers)" })),
  maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: "Token budget, input+output (only lowers)" })),
  maxCost: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Cost budget (only lowers)" })),
  context: Type.Optional(
    stringEnum(["fresh", "fork"] as const, {
      description: "fork: start from a copy of this conversation",
    }),
  ),
  isolation: Type.Optional(
    stringEnum(["none", "worktree"] as const, {
      description: "worktree: its own git worktree",
    }),
  ),
  model: Type.Optional(Type.String({ description: "provider/id for this task" })),
  thinking: Type.Optional(stringEnum(THINKING_LEVELS, { description: "Thinking level for this task" })),
  sandbox: Type.Optional(
    stringEnum(["off", "workspace-write", "read-only"] as const, { description: "Only tightens the agent's sandbox" }),
  ),
  tools: Type.Optional(
    Type.Array(Type.String(), {
      description: "Narrow the agent's tools (never adds one)",
    }),
  ),
  verify: Type.Optional(Type.String({ description: "Check command run when it ends (only adds)" })),
  tasks: Type.Optional(Type.Array(workflowPart, { description: "A batch of {agent, task}" })),
  chain: Type.Optional(Type.Array(workflowPart, { description: "Steps {agent, task} run in order" })),
  agentScope: Type.Optional(
    stringEnum(["user", "project", "both"] as const, { description: "Agent folders besides built-ins (default both)" }),
  ),
  confirmProjectAgents: Type.Optional(Type.Boolean({ description: "TUI: ask before each project agent run" })),
});

type SchemaParams = Static<typeof subagentParameters>;

/** The call's parameters, with batch and chain entries as the tool reads them (extra per-task fields included). */
export type SubagentParams = Omit<SchemaParams, "tasks" | "chain"> & { tasks?: WorkflowPart[]; chain?: WorkflowPart[] };
