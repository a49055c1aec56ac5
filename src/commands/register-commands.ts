/**
 * Registers the person's controls of subagent tasks: /subagent-cancel, /subagent-cancel-all,
 * /subagent-message, /subagent-result and /subagent-watch, with argument completion of task ids, and
 * /subagent-worktrees. A command never throws: a failure becomes a notice (on stderr outside the TUI), so
 * `pi -p` never exits on one.
 * Each command's body (its pickers, viewers and texts) is imported when the command first runs, not with the
 * runtime, which the TUI loads at every start (ADVANCED.md, "Supported pis and loading cost").
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { agentDir } from "../shared/paths.js";
import type { BackgroundHandle } from "../tasks/register-background.js";
import { loadOnce } from "../shared/load-once.js";
import { taskCompletions } from "./completions.js";
import {
  CANCEL_ALL_COMMAND,
  CANCEL_ALL_DESCRIPTION,
  CANCEL_COMMAND,
  CANCEL_DESCRIPTION,
  MESSAGE_COMMAND,
  MESSAGE_DESCRIPTION,
  RESULT_COMMAND,
  RESULT_DESCRIPTION,
  WATCH_COMMAND,
  WATCH_DESCRIPTION,
  WORKTREES_COMMAND,
  WORKTREES_DESCRIPTION,
} from "./descriptions.js";
import { commandIo, type CommandIo } from "./command-io.js";
import { commandFailed } from "./notices.js";
import { taskCommandDeps, type TaskCommandContext, type TaskCommandDeps } from "./task-command-deps.ts";
import type { WorktreesDeps } from "./worktrees-command.ts";

type Handler = (args: string, ctx: TaskCommandContext, deps: TaskCommandDeps) => Promise<void>;

const cancelBodies = loadOnce(() => import("./cancel-commands.ts"));
const messageBody = loadOnce(() => import("./message-command.ts"));
const resultBody = loadOnce(() => import("./result-command.ts"));
const watchBody = loadOnce(() => import("./watch-command.ts"));
const worktreesBody = loadOnce(() => import("./worktrees-command.ts"));

/** A handler whose module is imported on its first run (a failed import is a failed command, tried again next time). */
function loadedHandler<M>(load: () => Promise<M>, pick: (module: M) => Handler): Handler {
  return async (args, ctx, deps) => pick(await load())(args, ctx, deps);
}

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
    description: CANCEL_DESCRIPTION,
    getArgumentCompletions: safeCompletions(completions.running),
    handler: guarded(CANCEL_COMMAND, loadedHandler(cancelBodies, (body) => body.cancelCommand), deps),
  });
  pi.registerCommand(CANCEL_ALL_COMMAND, {
    description: CANCEL_ALL_DESCRIPTION,
    handler: guarded(CANCEL_ALL_COMMAND, loadedHandler(cancelBodies, (body) => body.cancelAllCommand), deps),
  });
  pi.registerCommand(MESSAGE_COMMAND, {
    description: MESSAGE_DESCRIPTION,
    getArgumentCompletions: safeCompletions((typed) => (/\s/.test(typed.trimStart()) ? null : completions.running(typed))),
    handler: guarded(MESSAGE_COMMAND, loadedHandler(messageBody, (body) => body.messageCommand), deps),
  });
  pi.registerCommand(RESULT_COMMAND, {
    description: RESULT_DESCRIPTION,
    getArgumentCompletions: safeCompletions(completions.runningAndRecent),
    handler: guarded(RESULT_COMMAND, loadedHandler(resultBody, (body) => body.resultCommand), deps),
  });
  pi.registerCommand(WATCH_COMMAND, {
    description: WATCH_DESCRIPTION,
    getArgumentCompletions: safeCompletions(completions.running),
    handler: guarded(WATCH_COMMAND, loadedHandler(watchBody, (body) => body.watchCommand), deps),
  });
}

export function registerWorktreesCommand(pi: ExtensionAPI, deps: WorktreesDeps = { agentDir, io: (ctx) => commandIo(ctx) }): void {
  pi.registerCommand(WORKTREES_COMMAND, {
    description: WORKTREES_DESCRIPTION,
    handler: guarded(WORKTREES_COMMAND, async (args, ctx: ExtensionCommandContext, worktreesDeps: WorktreesDeps) => (await worktreesBody()).worktreesCommand(args, ctx, worktreesDeps), deps),
  });
}
