/**
 * Registers the person's controls of subagent tasks: /subagent-cancel, /subagent-cancel-all,
 * /subagent-result and /subagent-watch, with argument completion of task ids. A command never throws: a
 * failure becomes a notice (on stderr outside the TUI), so `pi -p` never exits on one.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { agentDir } from "../shared/paths.js";
import type { BackgroundHandle } from "../tasks/register-background.js";
import { cancelAllCommand, cancelCommand } from "./cancel-commands.ts";
import { taskCompletions } from "./completions.js";
import {
  CANCEL_ALL_COMMAND,
  CANCEL_ALL_DESCRIPTION,
  CANCEL_COMMAND,
  CANCEL_DESCRIPTION,
  RESULT_COMMAND,
  RESULT_DESCRIPTION,
  WATCH_COMMAND,
  WATCH_DESCRIPTION,
} from "./descriptions.js";
import { commandFailed } from "./notices.js";
import { MESSAGE_DESCRIPTION } from "./descriptions.js";
import { MESSAGE_COMMAND, messageCommand } from "./message-command.ts";
import { resultCommand } from "./result-command.ts";
import { taskCommandDeps, type TaskCommandContext, type TaskCommandDeps } from "./task-command-deps.ts";
import { watchCommand } from "./watch-command.ts";

type Handler = (args: string, ctx: TaskCommandContext, deps: TaskCommandDeps) => Promise<void>;

/** Runs a handler so that nothing escapes it: an error is reported where the command's notices go. */
export function guarded(command: string, handler: Handler, deps: TaskCommandDeps): (args: string, ctx: TaskCommandContext) => Promise<void> {
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
    description: CANCEL_DESCRIPTION,
    getArgumentCompletions: safeCompletions(completions.running),
    handler: guarded(CANCEL_COMMAND, cancelCommand, deps),
  });
  pi.registerCommand(CANCEL_ALL_COMMAND, {
    description: CANCEL_ALL_DESCRIPTION,
    handler: guarded(CANCEL_ALL_COMMAND, cancelAllCommand, deps),
  });
  pi.registerCommand(MESSAGE_COMMAND, {
    description: MESSAGE_DESCRIPTION,
    getArgumentCompletions: safeCompletions((typed) => (/\s/.test(typed.trimStart()) ? null : completions.running(typed))),
    handler: guarded(MESSAGE_COMMAND, messageCommand, deps),
  });
  pi.registerCommand(RESULT_COMMAND, {
    description: RESULT_DESCRIPTION,
    getArgumentCompletions: safeCompletions(completions.runningAndRecent),
    handler: guarded(RESULT_COMMAND, resultCommand, deps),
  });
  pi.registerCommand(WATCH_COMMAND, {
    description: WATCH_DESCRIPTION,
    getArgumentCompletions: safeCompletions(completions.running),
    handler: guarded(WATCH_COMMAND, watchCommand, deps),
  });
}
