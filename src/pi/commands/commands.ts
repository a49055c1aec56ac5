/**
 * The commands registered: the task commands (their bodies in task-commands.ts and worktrees-command.ts), and the lazy registrations of `/subagent-agents` and `/subagent-config`, whose bodies load when they first run.
 */
import type { ExtensionCommandContext, ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { loadOnce } from "../../shared/pi-process.ts";
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { taskCompletions, commandFailed } from "../../commands/task-commands.ts";
import { AGENTS_COMMAND, COMMANDS, TRACE_COMMAND, WORKTREES_COMMAND } from "../../commands/descriptions.ts";
import { discoverAgents } from "../../agents/discover.ts";
import type { SubagentConfigCommandOptions } from "./config-command.ts";
import { agentDir } from "../../shared/this-process.ts";
import type { BackgroundHandle } from "../runtime.ts";
import { cancelAllCommand, cancelCommand, messageCommand, resultCommand, watchCommand } from "./task-commands.ts";
import { worktreesCommand, type WorktreesDeps } from "./worktrees-command.ts";
import { commandIo, taskCommandDeps, type CommandIo, type TaskCommandDeps } from "./command-io.ts";

/*
 * Registers /subagent-agents with pi. Its body (src/pi/commands/agents-command.ts: the inventory, its text and
 * the TUI view) is imported when the command first runs; a failure is a notice, never a throw (`guarded`).
 */
const loadAgentsCommandBody = loadOnce(() => import("./agents-command.ts"));

export function registerAgentsCommand(pi: ExtensionAPI): void {
  const deps = { io: (ctx: ExtensionCommandContext): CommandIo => commandIo(ctx) };
  pi.registerCommand(AGENTS_COMMAND, {
    description: COMMANDS.agents.description,
    handler: guarded(
      AGENTS_COMMAND,
      async (_args, ctx: ExtensionCommandContext, commandDeps) =>
        (await loadAgentsCommandBody()).agentsCommand(pi, ctx, commandDeps.io(ctx)),
      deps,
    ),
  });
}

/*
 * Registers `/subagent-config [agent-name]` with pi: its name, description and agent-name completion. The body
 * (src/pi/commands/config-command.ts: dialogs, store, flow, agent-file edits and the YAML library they use) is
 * imported when the command first runs.
 */
export const COMMAND_NAME = COMMANDS.config.name;

const loadConfigCommandBody = loadOnce(() => import("./config-command.ts"));

/**
 * Agent names starting with what was typed, for `/subagent-config <Tab>`. A name typed in full that no other
 * name extends gets no list: pi's editor takes Enter on an open list as "apply the completion", so a list
 * there would cost a second Enter for nothing.
 */
export function agentNameCompletions(
  prefix: string,
  cwd: string,
  paths: SubagentConfigCommandOptions["paths"] = {},
): AutocompleteItem[] | null {
  try {
    const typed = prefix.trim();
    const matching = discoverAgents({ ...paths, cwd }).agents.filter((agent) => agent.name.startsWith(typed));
    if (matching.length === 0 || (matching.length === 1 && matching[0]!.name === typed)) return null;
    return matching.map((agent) => ({
      value: agent.name,
      label: agent.name,
      description: `(${agent.dialect === "claude" ? `claude ${agent.source}` : agent.source}) ${agent.description.replace(/\s+/g, " ")}`,
    }));
  } catch {
    return null;
  }
}

export function registerSubagentConfigCommand(
  pi: Pick<ExtensionAPI, "registerCommand">,
  options: SubagentConfigCommandOptions = {},
): void {
  pi.registerCommand(COMMAND_NAME, {
    description: COMMANDS.config.description,
    // pi gives completions no context; its working directory is the process's.
    getArgumentCompletions: (prefix) => agentNameCompletions(prefix, process.cwd(), options.paths),
    handler: async (args, ctx) => (await loadConfigCommandBody()).runSubagentConfigCommand(args, ctx, options),
  });
}

/*
 * Registers the person's controls of subagent tasks: /subagent-cancel, /subagent-cancel-all,
 * /subagent-message, /subagent-result and /subagent-watch, with argument completion of task ids, and
 * /subagent-worktrees. A command never throws: a failure becomes a notice (on stderr outside the TUI), so
 * `pi -p` never exits on one.
 */
/** Runs a handler so that nothing escapes it: an error is reported where the command's notices go. */
export function guarded<Ctx, Deps extends { io(ctx: Ctx): CommandIo }>(
  command: string,
  handler: (args: string, ctx: Ctx, deps: Deps) => Promise<void>,
  deps: Deps,
): (args: string, ctx: Ctx) => Promise<void> {
  return async (args, ctx) => {
    try {
      await handler(args, ctx, deps);
    } catch (error) {
      try {
        const io = deps.io(ctx);
        io.notice(commandFailed(command, error), "error");
        io.failed();
      } catch {
        // nowhere left to report it
      }
    }
  };
}

function safeCompletions(
  complete: (typed: string) => AutocompleteItem[] | null,
): (typed: string) => AutocompleteItem[] | null {
  return (typed) => {
    try {
      return complete(typed);
    } catch {
      return null;
    }
  };
}

type TaskCompletions = ReturnType<typeof taskCompletions>;

/**
 * The task commands, one entry each: the key of its name and description in COMMANDS, its body, and the task ids
 * it completes (none for /subagent-cancel-all; /subagent-message completes only its first word).
 */
const TASK_COMMANDS: ReadonlyArray<{
  key: "cancel" | "cancelAll" | "message" | "result" | "watch";
  body: (args: string, ctx: ExtensionCommandContext, deps: TaskCommandDeps) => Promise<void>;
  completes?: (completions: TaskCompletions) => (typed: string) => AutocompleteItem[] | null;
}> = [
  { key: "cancel", body: cancelCommand, completes: (completions) => completions.cancellable },
  { key: "cancelAll", body: cancelAllCommand },
  {
    key: "message",
    body: messageCommand,
    completes: (completions) => (typed) => (/\s/.test(typed.trimStart()) ? null : completions.running(typed)),
  },
  { key: "result", body: resultCommand, completes: (completions) => completions.runningAndRecent },
  { key: "watch", body: watchCommand, completes: (completions) => completions.running },
];

export function registerTaskCommands(
  pi: ExtensionAPI,
  background: BackgroundHandle,
  deps: TaskCommandDeps = taskCommandDeps(background.existing, agentDir),
): void {
  const completions = taskCompletions(deps.sources, deps.now);
  for (const command of TASK_COMMANDS) {
    const { name, description } = COMMANDS[command.key];
    pi.registerCommand(name, {
      description,
      ...(command.completes ? { getArgumentCompletions: safeCompletions(command.completes(completions)) } : {}),
      handler: guarded(name, command.body, deps),
    });
  }
}

export function registerWorktreesCommand(
  pi: ExtensionAPI,
  deps: WorktreesDeps = { agentDir, io: (ctx) => commandIo(ctx) },
): void {
  pi.registerCommand(WORKTREES_COMMAND, {
    description: COMMANDS.worktrees.description,
    handler: guarded(WORKTREES_COMMAND, worktreesCommand, deps),
  });
}

/*
 * Registers `/subagent-trace`. Its body (src/pi/commands/trace-command.ts, with the trace's reader, builder,
 * text, spans and viewer) is imported when the command first runs, so nobody pays for it who does not trace.
 */
const loadTraceCommandBody = loadOnce(() => import("./trace-command.ts"));

export function registerTraceCommand(
  pi: ExtensionAPI,
  background: BackgroundHandle,
  deps: TaskCommandDeps = taskCommandDeps(background.existing, agentDir),
): void {
  pi.registerCommand(TRACE_COMMAND, {
    description: COMMANDS.trace.description,
    handler: guarded(
      TRACE_COMMAND,
      async (args, ctx: ExtensionCommandContext, commandDeps) =>
        (await loadTraceCommandBody()).traceCommand(args, ctx, commandDeps),
      deps,
    ),
  });
}
