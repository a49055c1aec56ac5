/**
 * Registers the person's controls of subagent tasks: /subagent-cancel, /subagent-cancel-all,
 * /subagent-message, /subagent-result and /subagent-watch, with argument completion of task ids, and
 * /subagent-worktrees. A command never throws: a failure becomes a notice (on stderr outside the TUI), so
 * `pi -p` never exits on one.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { agentDir } from "../../shared/paths.ts";
import type { BackgroundHandle } from "../register-background.ts";
import { taskCompletions } from "../../commands/completions.ts";
import {
  CANCEL_ALL_COMMAND,
  CANCEL_COMMAND,
  MESSAGE_COMMAND,
  RESULT_COMMAND,
  WATCH_COMMAND,
  WORKTREES_COMMAND,
  COMMANDS,
} from "../../commands/descriptions.ts";
import { commandIo, type CommandIo } from "./command-io.ts";
import { commandFailed } from "../../commands/notices.ts";
import { taskCommandDeps, type TaskCommandDeps } from "./task-command-deps.ts";
import { cancelAllCommand, cancelCommand } from "./cancel-commands.ts";
import { messageCommand } from "./message-command.ts";
import { resultCommand } from "./result-command.ts";
import { watchCommand } from "./watch-command.ts";
import { worktreesCommand, type WorktreesDeps } from "./worktrees-command.ts";

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

function safeCompletions(complete: (typed: string) => AutocompleteItem[] | null): (typed: string) => AutocompleteItem[] | null {
  return (typed) => {
    try {
      return complete(typed);
    } catch {
      return null;
    }
  };
}

export function registerTaskCommands(pi: ExtensionAPI, background: BackgroundHandle, deps: TaskCommandDeps = taskCommandDeps(background.existing, agentDir)): void {
  const completions = taskCompletions(deps.sources, deps.now);
  pi.registerCommand(CANCEL_COMMAND, {
    description: COMMANDS.cancel.description,
    getArgumentCompletions: safeCompletions(completions.cancellable),
    handler: guarded(CANCEL_COMMAND, cancelCommand, deps),
  });
  pi.registerCommand(CANCEL_ALL_COMMAND, {
    description: COMMANDS.cancelAll.description,
    handler: guarded(CANCEL_ALL_COMMAND, cancelAllCommand, deps),
  });
  pi.registerCommand(MESSAGE_COMMAND, {
    description: COMMANDS.message.description,
    getArgumentCompletions: safeCompletions((typed) => (/\s/.test(typed.trimStart()) ? null : completions.running(typed))),
    handler: guarded(MESSAGE_COMMAND, messageCommand, deps),
  });
  pi.registerCommand(RESULT_COMMAND, {
    description: COMMANDS.result.description,
    getArgumentCompletions: safeCompletions(completions.runningAndRecent),
    handler: guarded(RESULT_COMMAND, resultCommand, deps),
  });
  pi.registerCommand(WATCH_COMMAND, {
    description: COMMANDS.watch.description,
    getArgumentCompletions: safeCompletions(completions.running),
    handler: guarded(WATCH_COMMAND, watchCommand, deps),
  });
}

export function registerWorktreesCommand(pi: ExtensionAPI, deps: WorktreesDeps = { agentDir, io: (ctx) => commandIo(ctx) }): void {
  pi.registerCommand(WORKTREES_COMMAND, {
    description: COMMANDS.worktrees.description,
    handler: guarded(WORKTREES_COMMAND, worktreesCommand, deps),
  });
}
