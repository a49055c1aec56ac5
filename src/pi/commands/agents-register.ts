/**
 * Registers /subagent-agents with pi. Its body (src/pi/commands/agents-command.ts: the inventory, its text and
 * the TUI view) is imported when the command first runs; a failure is a notice, never a throw (`guarded`).
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { AGENTS_COMMAND, COMMANDS } from "../../commands/descriptions.ts";
import { loadOnce } from "../../shared/load-once.ts";
import { commandIo, type CommandIo } from "./command-io.ts";
import { guarded } from "./register-commands.ts";

const loadAgentsCommandBody = loadOnce(() => import("./agents-command.ts"));

export function registerAgentsCommand(pi: ExtensionAPI): void {
  const deps = { io: (ctx: ExtensionCommandContext): CommandIo => commandIo(ctx) };
  pi.registerCommand(AGENTS_COMMAND, {
    description: COMMANDS.agents.description,
    handler: guarded(AGENTS_COMMAND, async (_args, ctx: ExtensionCommandContext, commandDeps) => (await loadAgentsCommandBody()).agentsCommand(pi, ctx, commandDeps.io(ctx)), deps),
  });
}
