/**
 * Registers `/subagent-config [agent-name]` with pi: its name, description and agent-name completion. The body
 * (src/pi/commands/subagent-config/run.ts: dialogs, store, flow, agent-file edits and the YAML library they use) is
 * imported when the command first runs.
 */
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { discoverAgents } from "../../../agents/discover.ts";
import { loadOnce } from "../../../shared/load-once.ts";
import type { SubagentConfigCommandOptions } from "./run.ts";

import { COMMANDS } from "../../../commands/descriptions.ts";

export const COMMAND_NAME = COMMANDS.config.name;

const loadConfigCommandBody = loadOnce(() => import("./run.ts"));

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
    description: COMMANDS.config.description,
    // pi gives completions no context; its working directory is the process's.
    getArgumentCompletions: (prefix) => agentNameCompletions(prefix, process.cwd(), options.paths),
    handler: async (args, ctx) => (await loadConfigCommandBody()).runSubagentConfigCommand(args, ctx, options),
  });
}
