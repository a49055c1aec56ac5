/**
 * Registers `/subagent-config [agent-name]` with pi. Where there is no UI (print and JSON mode) it only warns
 * with the usage, opens no dialog and writes nothing; the warning also goes to stderr, since pi drops
 * notifications there. In the TUI and in RPC mode it runs the flow with that mode's dialogs.
 */
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { discoverAgents } from "../../agents/discover.js";
import { WARNING_PREFIX } from "../../agents/warnings.js";
import { currentModelRef } from "../../config/resolve.js";
import { detectAppMode, type AppMode } from "../../shared/mode.js";
import { rpcDialogs, tuiDialogs } from "./dialogs.ts";
import { runSubagentConfigFlow } from "./flow.js";
import { NON_TUI_WARNING } from "./notices.js";
import { createConfigStore, type ConfigStoreOptions } from "./store.js";
import type { ConfigDialogs } from "./types.ts";

export { CONFIG_COMMAND as COMMAND_NAME, CONFIG_DESCRIPTION as COMMAND_DESCRIPTION } from "../descriptions.js";
import { CONFIG_COMMAND as COMMAND_NAME, CONFIG_DESCRIPTION as COMMAND_DESCRIPTION } from "../descriptions.js";

export interface SubagentConfigCommandOptions {
  /** How pi runs (default: detected from the command line). */
  appMode?: AppMode;
  /** Paths for the store (tests); cwd and the inherited model always come from the command's context. */
  paths?: Omit<ConfigStoreOptions, "cwd" | "inheritedModel">;
  /** Replaces the dialogs built from ctx.ui (tests). */
  dialogs?: ConfigDialogs;
  /** Where the no-UI warning is written besides ctx.ui (default: stderr). */
  writeStderr?: (text: string) => void;
}

type CommandContext = Pick<ExtensionCommandContext, "hasUI" | "ui" | "cwd" | "model">;

export async function runSubagentConfigCommand(args: string, ctx: CommandContext, options: SubagentConfigCommandOptions = {}): Promise<void> {
  if (!ctx.hasUI) {
    ctx.ui.notify(NON_TUI_WARNING, "warning");
    (options.writeStderr ?? ((text) => process.stderr.write(text)))(`${WARNING_PREFIX}${NON_TUI_WARNING}\n`);
    return;
  }
  const mode = options.appMode ?? detectAppMode();
  const dialogs = options.dialogs ?? (mode === "rpc" ? rpcDialogs(ctx.ui) : tuiDialogs(ctx.ui));
  const inheritedModel = currentModelRef(ctx.model);
  const store = createConfigStore({
    ...options.paths,
    cwd: ctx.cwd,
    ...(inheritedModel !== undefined ? { inheritedModel } : {}),
  });
  await runSubagentConfigFlow(dialogs, store, args);
}

/**
 * Agent names starting with what was typed, for `/subagent-config <Tab>`. A name typed in full that no other
 * name extends gets no list: pi's editor takes Enter on an open list as "apply the completion", so a list
 * there would cost a second Enter for nothing.
 */
export function agentNameCompletions(prefix: string, cwd: string, paths: SubagentConfigCommandOptions["paths"] = {}): AutocompleteItem[] | null {
  try {
    const typed = prefix.trim();
    const matching = discoverAgents({ ...paths, cwd }).agents.filter((agent) => agent.name.startsWith(typed));
    if (matching.length === 0 || (matching.length === 1 && matching[0]!.name === typed)) return null;
    return matching.map((agent) => ({
      value: agent.name,
      label: agent.name,
      description: `(${agent.source}) ${agent.description.replace(/\s+/g, " ")}`,
    }));
  } catch {
    return null;
  }
}

export function registerSubagentConfigCommand(pi: Pick<ExtensionAPI, "registerCommand">, options: SubagentConfigCommandOptions = {}): void {
  pi.registerCommand(COMMAND_NAME, {
    description: COMMAND_DESCRIPTION,
    // pi gives completions no context; its working directory is the process's.
    getArgumentCompletions: (prefix) => agentNameCompletions(prefix, process.cwd(), options.paths),
    handler: (args, ctx) => runSubagentConfigCommand(args, ctx, options),
  });
}
