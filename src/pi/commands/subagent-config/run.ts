/**
 * The body of `/subagent-config [agent-name]`: the flow with the dialogs of the mode pi runs in, over the config
 * store. Where there is no UI (print and JSON mode) it only warns with the usage, opens no dialog and writes
 * nothing; the warning also goes to stderr, since pi drops notifications there. Imported when the command first
 * runs (register.ts), not with the runtime: the agent-file editing it does needs the YAML library, which costs
 * every TUI session about 30 ms and 1.4 MB of heap when loaded up front.
 */
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { WARNING_PREFIX } from "../../../agents/warnings.ts";
import { currentModelRef } from "../../../config/resolve.ts";
import { detectAppMode, type AppMode } from "../../../shared/mode.ts";
import { rpcDialogs, tuiDialogs } from "./dialogs.ts";
import { runSubagentConfigFlow } from "../../../commands/subagent-config/flow.ts";
import { NON_TUI_WARNING } from "../../../commands/subagent-config/config-notices.ts";
import { createConfigStore, type ConfigStoreOptions } from "../../../commands/subagent-config/store.ts";
import { readPiTrust } from "../../tool/session-authority.ts";
import { agentDir } from "../../../shared/paths.ts";
import { inheritedThinking, piDefaultThinking } from "../../../config/pi-default-thinking.ts";
import type { ConfigDialogs } from "../../../commands/subagent-config/config-types.ts";

export interface SubagentConfigCommandOptions {
  /** How pi runs (default: detected from the command line). */
  appMode?: AppMode;
  /** Paths for the store (tests); cwd, the inherited model and pi's models always come from the command's context. */
  paths?: Omit<ConfigStoreOptions, "cwd" | "inheritedModel" | "inheritedThinking" | "registryModels">;
  /** Replaces the dialogs built from ctx.ui (tests). */
  dialogs?: ConfigDialogs;
  /** Where the no-UI warning is written besides ctx.ui (default: stderr). */
  writeStderr?: (text: string) => void;
}

type CommandContext = Pick<ExtensionCommandContext, "hasUI" | "ui" | "cwd" | "model"> & Partial<Pick<ExtensionCommandContext, "modelRegistry">>;

/** The models pi can use now (its registry's available ones), as `provider/id`; none when pi cannot say. */
function registryModels(ctx: CommandContext): string[] {
  try {
    return (ctx.modelRegistry?.getAvailable() ?? []).map((model) => `${model.provider}/${model.id}`);
  } catch {
    return [];
  }
}

export async function runSubagentConfigCommand(args: string, ctx: CommandContext, options: SubagentConfigCommandOptions = {}): Promise<void> {
  if (!ctx.hasUI) {
    ctx.ui.notify(NON_TUI_WARNING, "warning");
    (options.writeStderr ?? ((text) => process.stderr.write(text)))(`${WARNING_PREFIX}${NON_TUI_WARNING}\n`);
    return;
  }
  const mode = options.appMode ?? detectAppMode();
  const dialogs = options.dialogs ?? (mode === "rpc" ? rpcDialogs(ctx.ui) : tuiDialogs(ctx.ui));
  const inheritedModel = currentModelRef(ctx.model);
  const dir = options.paths?.agentDir ?? agentDir();
  const projectTrusted = readPiTrust(ctx, process.argv, dir).kind !== "untrusted";
  const store = createConfigStore({
    ...options.paths,
    cwd: ctx.cwd,
    ...(inheritedModel !== undefined ? { inheritedModel } : {}),
    inheritedThinking: inheritedThinking(piDefaultThinking({ agentDir: dir, cwd: ctx.cwd, projectTrusted }), ctx.model),
    registryModels: registryModels(ctx),
    ...(projectTrusted ? {} : { projectTrusted: false }),
  });
  await runSubagentConfigFlow(dialogs, store, args);
}
