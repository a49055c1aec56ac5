/**
 * /subagent-agents: every agent the main agent can dispatch now, read the way a dispatch reads it (pi's trust
 * decision, the config layers, the three folders, the session's tools), with the definitions shadowed and the
 * files left out. In the TUI a full-screen view; in print mode the lines on stdout; in JSON mode one JSON line;
 * under RPC a notice. Imported when the command first runs (src/pi/commands/agents-register.ts).
 */
import { readdirSync } from "node:fs";
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { discoverAgents } from "../../agents/discover.ts";
import { readAgentsDir } from "../../agents/read-dir.ts";
import { agentDir } from "../../shared/paths.ts";
import { isApproved } from "../../authority/first-use-approvals.ts";
import { decideProjectAuthority } from "../../authority/project-trust.ts";
import { readAuthoritySettings } from "../../authority/user-settings.ts";
import { readSandboxSettings } from "../../config/sandbox-settings.ts";
import { currentModelRef } from "../../config/resolve.ts";
import { buildAgentInventory } from "../../commands/agents-inventory.ts";
import type { AgentInventory, TierContents } from "../../commands/agents-inventory.ts";
import { agentsJsonLine, agentsReportLines } from "../../commands/agents-text.ts";
import { readSessionAuthority, readSessionTools, sessionConfig } from "../tool/session-authority.ts";
import { AgentsView } from "../ui/agents-view.ts";
import { FULL_SCREEN } from "../ui/result-viewer.ts";
import type { CommandIo } from "./command-io.ts";

export type AgentsCommandContext = Pick<ExtensionCommandContext, "cwd" | "hasUI" | "ui" | "model"> & { isProjectTrusted?: () => boolean };

const NO_AGENTS_HERE: TierContents = { agents: [], warnings: [] };

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".md"));
  } catch {
    return [];
  }
}

/** The inventory as a dispatch from this session would see it now. */
export function readAgentInventory(pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">, ctx: AgentsCommandContext, canAsk: boolean, argv: readonly string[] = process.argv): AgentInventory {
  const dir = agentDir();
  // As a dispatch decides (src/pi/tool/register-tool.ts): trust and the person's authority settings as they were at
  // the session's start, and the guarded files changed since.
  const { start, changedSinceStart } = readSessionAuthority(ctx, argv, dir);
  const trust = start.trust;
  const config = sessionConfig(ctx.cwd, trust, start.userAuthority);
  const settings = readAuthoritySettings(config);
  const authority = decideProjectAuthority(trust, settings.projectAgents, changedSinceStart);
  // Discovery decides which folders count (its rules for the project folder); each tier is then read on its own,
  // so the shadowed definitions can be named. The parse cache makes the second read one stat per file.
  const discovery = discoverAgents({ cwd: ctx.cwd, projectAgents: authority.projectAgents });
  const sandbox = readSandboxSettings(config);
  const skipped = discovery.projectAgentsSkipped;
  return buildAgentInventory({
    tiers: {
      builtin: readAgentsDir(discovery.builtinAgentsDir, "builtin"),
      user: readAgentsDir(discovery.userAgentsDir, "user"),
      project: discovery.projectAgentsDir !== undefined ? readAgentsDir(discovery.projectAgentsDir, "project") : NO_AGENTS_HERE,
    },
    ...(skipped !== undefined && authority.hiddenBecause ? { skippedProject: { dir: skipped, files: markdownFiles(skipped), because: authority.hiddenBecause } } : {}),
    layers: config,
    inheritedModel: currentModelRef(ctx.model),
    sandboxDefaults: { user: sandbox.userDefault, project: sandbox.projectDefault },
    session: readSessionTools(pi),
    ceiling: settings.toolCeiling,
    projectGate: authority.gate,
    approved: (agent) => agent.contentSha256 !== undefined && isApproved(dir, agent.filePath, agent.contentSha256),
    canAsk,
  });
}

export async function agentsCommand(pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">, ctx: AgentsCommandContext, io: CommandIo): Promise<void> {
  const inventory = readAgentInventory(pi, ctx, io.surface === "tui");
  if (io.mode === "json" && io.surface === "stdio") {
    io.stdout(agentsJsonLine(inventory));
    return;
  }
  const lines = agentsReportLines(inventory);
  if (io.surface === "tui") {
    await ctx.ui.custom<void>(
      (tui, theme, _keybindings, done) =>
        new AgentsView({ lines, theme, rows: () => tui.terminal.rows, onClose: () => done(), requestRender: () => tui.requestRender() }),
      FULL_SCREEN,
    );
  } else if (io.surface === "rpc") {
    io.notice(lines.join("\n"));
  } else {
    io.stdout(`${lines.join("\n")}\n`);
  }
}
