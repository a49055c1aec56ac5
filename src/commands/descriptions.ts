/**
 * The extension's commands: each one's name and one-line description, in one table with no dependencies. pi learns
 * them at start from this table (src/start/main-pi.ts lists every entry), and each command's registration in the
 * runtime takes its name and description from its entry. A new command is one entry here, one registration in the
 * runtime (a unit test checks the two agree), its body, and its entry in ADVANCED.md's command table.
 */
export const COMMANDS = {
  config: {
    name: "subagent-config",
    description: "Configure subagents: description, tools, skills, body, model & thinking, and the $models list",
  },
  cancel: {
    name: "subagent-cancel",
    description: "Cancel a running subagent task (id or 4+ character prefix; no id: pick one)",
  },
  cancelAll: {
    name: "subagent-cancel-all",
    description: "Cancel every running and queued subagent task of this session",
  },
  message: {
    name: "subagent-message",
    description: "Send a message to a running subagent task: /subagent-message <id> <text> (no id: pick one)",
  },
  result: {
    name: "subagent-result",
    description: "Show the full result of a finished subagent task (no id: pick a recent one)",
  },
  watch: { name: "subagent-watch", description: "Watch a running subagent task live (no id: pick one)" },
  usage: {
    name: "subagent-usage",
    description:
      "Show what this session's subagents used: tasks by status, turns, tokens and cost, by agent and by model",
  },
  answer: {
    name: "subagent-answer",
    description:
      "Answer the oldest question a subagent is waiting on (shown in the progress widget); refuse [id]: answer all of one task's questions cancelled",
  },
  agents: {
    name: "subagent-agents",
    description:
      "List the agents the main agent can dispatch: tier, model and thinking with their source, tools, sandbox, isolation; and the files left out, with why",
  },
  worktrees: {
    name: "subagent-worktrees",
    description:
      "List the kept git worktrees of subagent tasks (TUI: pick one to remove); remove <id>: remove one and its branch; merge <id>: merge its branch into the current branch",
  },
  trace: {
    name: "subagent-trace",
    description:
      "Show a delegation as one tree: each subagent, its turns and tool calls with times, tokens and cost, and what was decided about it (task, batch or chain id; no id: pick a recent one); --json <file>: write it as OpenTelemetry spans",
  },
} as const satisfies Record<string, { name: string; description: string }>;

// The names, for the texts that mention a command.
export const CANCEL_COMMAND = COMMANDS.cancel.name;
export const CANCEL_ALL_COMMAND = COMMANDS.cancelAll.name;
export const MESSAGE_COMMAND = COMMANDS.message.name;
export const RESULT_COMMAND = COMMANDS.result.name;
export const WATCH_COMMAND = COMMANDS.watch.name;
export const USAGE_COMMAND = COMMANDS.usage.name;
export const WORKTREES_COMMAND = COMMANDS.worktrees.name;
export const ANSWER_COMMAND = COMMANDS.answer.name;
export const AGENTS_COMMAND = COMMANDS.agents.name;
export const TRACE_COMMAND = COMMANDS.trace.name;
