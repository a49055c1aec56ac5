/**
 * `/subagent-agents`' body and view, loaded when the command first runs.
 */
import type { Theme, ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { Key, matchesKey, truncateToWidth, wrapTextWithAnsi, type Component } from "@mariozechner/pi-tui";
import { RESULT_VIEWER_KEYS, ScrollWindow, FULL_SCREEN } from "../ui/views.ts";
import {
  LEFT_OUT_HEADING,
  SHADOWED_HEADING,
  buildAgentInventory,
  agentsJsonLine,
  agentsReportLines,
  type AgentInventory,
  type TierContents,
} from "../../commands/agents-inventory.ts";
import { readdirSync } from "node:fs";
import { discoverAgents, readAgentsDir } from "../../agents/discover.ts";
import { readClaudeAgentsSetting } from "../../agents/claude-agent.ts";
import { agentDir } from "../../shared/this-process.ts";
import { isApproved } from "../../authority/first-use-approvals.ts";
import { decideProjectAuthority, readAuthoritySettings } from "../../authority/trust.ts";
import { readSandboxSettings, currentModelRef } from "../../config/resolve.ts";
import { readSessionAuthority, readSessionTools, sessionConfig } from "../tool/authority.ts";
import type { CommandIo } from "./command-io.ts";

/*
 * The TUI view of /subagent-agents: the lines print mode writes to stdout (src/commands/agents-inventory.ts),
 * full screen, scrollable and opened at the top, in pi's theme colours: each agent's name line in the accent
 * colour, its details plain, a cut tool or a first-use question in the warning colour, the file in dim, the two
 * closing sections muted. Keys as in the result viewer; Esc, q or Enter close it.
 */
/** Lines the view itself takes: title, two rules, footer. */
const CHROME_LINES = 4;

export interface AgentsViewOptions {
  /** The report's lines, the title first. */
  lines: readonly string[];
  theme: Pick<Theme, "fg" | "bold">;
  /** The terminal's height, read at every render (the view fills it). */
  rows: () => number;
  onClose: () => void;
  requestRender?: () => void;
}

export class AgentsView implements Component {
  private readonly scroll = new ScrollWindow(false);
  private closed = false;

  constructor(private readonly options: AgentsViewOptions) {}

  handleInput(data: string): void {
    if (this.closed) return;
    if (
      matchesKey(data, Key.escape) ||
      matchesKey(data, Key.enter) ||
      data === "q" ||
      matchesKey(data, Key.ctrl("c"))
    ) {
      this.closed = true;
      this.options.onClose();
      return;
    }
    if (this.scroll.handleKey(data)) this.options.requestRender?.();
  }

  /** How a report line is coloured: what kind of line it is shows in how it starts. */
  private colourOf(line: string, inSections: boolean): (text: string) => string {
    const { theme } = this.options;
    if (line === SHADOWED_HEADING || line === LEFT_OUT_HEADING) return (text) => theme.fg("accent", text);
    if (inSections) return (text) => theme.fg("muted", text);
    if (line.startsWith("  not granted:") || line.startsWith("  trust:") || line.startsWith("  note:"))
      return (text) => theme.fg("warning", text);
    if (line.startsWith("  file:")) return (text) => theme.fg("dim", text);
    if (line !== "" && !line.startsWith(" ")) return (text) => theme.fg("accent", theme.bold(text));
    return (text) => text;
  }

  render(width: number): string[] {
    const { theme } = this.options;
    const rows = Math.max(CHROME_LINES + 1, this.options.rows());
    const fit = (text: string) => truncateToWidth(text, width);
    const rule = theme.fg("borderMuted", "─".repeat(Math.max(0, width)));
    const [title = "", ...rest] = this.options.lines;
    let inSections = false;
    const body: string[] = [];
    for (const line of rest) {
      if (line === SHADOWED_HEADING || line === LEFT_OUT_HEADING) inSections = true;
      // Long lines (a path, a reason) wrap rather than lose their end, under their own indent.
      const indent = " ".repeat(1 + (/^ */.exec(line)?.[0].length ?? 0));
      const parts = wrapTextWithAnsi(
        this.colourOf(line, inSections)(line.trimStart()),
        Math.max(1, width - indent.length),
      );
      body.push(...parts.map((part) => `${indent}${part}`));
    }
    const { start, end } = this.scroll.fit(body.length, rows - CHROME_LINES);
    const lines = [fit(theme.fg("accent", theme.bold(` ${title}`))), rule, ...body.slice(start, end).map(fit)];
    while (lines.length < rows - 2) lines.push("");
    lines.push(rule, fit(theme.fg("dim", ` ${start + 1}-${end} of ${body.length} · ${RESULT_VIEWER_KEYS}`)));
    return lines;
  }

  invalidate(): void {}
}

/*
 * /subagent-agents: every agent the main agent can dispatch now, read the way a dispatch reads it (pi's trust
 * decision, the config layers, the three folders, the session's tools), with the definitions shadowed and the
 * files left out. In the TUI a full-screen view; in print mode the lines on stdout; in JSON mode one JSON line;
 * under RPC a notice. Imported when the command first runs (src/pi/commands/commands.ts).
 */
export type AgentsCommandContext = Pick<ExtensionCommandContext, "cwd" | "hasUI" | "ui" | "model"> & {
  isProjectTrusted?: () => boolean;
};

const NO_AGENTS_HERE: TierContents = { agents: [], warnings: [] };

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".md"));
  } catch {
    return [];
  }
}

/** The inventory as a dispatch from this session would see it now. */
export function readAgentInventory(
  pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">,
  ctx: AgentsCommandContext,
  canAsk: boolean,
  argv: readonly string[] = process.argv,
): AgentInventory {
  const dir = agentDir();
  // As a dispatch decides (src/pi/tool/execute.ts): trust and the person's authority settings as they were at
  // the session's start, and the guarded files changed since.
  const { start, changedSinceStart } = readSessionAuthority(ctx, argv, dir);
  const trust = start.trust;
  const config = sessionConfig(ctx.cwd, trust, start.userAuthority);
  const settings = readAuthoritySettings(config);
  const authority = decideProjectAuthority(trust, settings.projectAgents, changedSinceStart);
  // Discovery decides which folders count (its rules for the project folder); each tier is then read on its own,
  // so the shadowed definitions can be named. The parse cache makes the second read one stat per file.
  const claudeAgents = readClaudeAgentsSetting(config).enabled;
  const discovery = discoverAgents({ cwd: ctx.cwd, projectAgents: authority.projectAgents, claudeAgents });
  const sandbox = readSandboxSettings(config);
  const skipped = discovery.projectAgentsSkipped;
  const claudeSkipped = discovery.claudeProjectAgentsSkipped;
  return buildAgentInventory({
    tiers: {
      builtin: readAgentsDir(discovery.builtinAgentsDir, "builtin"),
      user: readAgentsDir(discovery.userAgentsDir, "user"),
      project:
        discovery.projectAgentsDir !== undefined
          ? readAgentsDir(discovery.projectAgentsDir, "project")
          : NO_AGENTS_HERE,
    },
    claudeTiers: {
      ...(discovery.claudeUserAgentsDir !== undefined
        ? { user: readAgentsDir(discovery.claudeUserAgentsDir, "user", "claude") }
        : {}),
      ...(discovery.claudeProjectAgentsDir !== undefined
        ? { project: readAgentsDir(discovery.claudeProjectAgentsDir, "project", "claude") }
        : {}),
    },
    ...(skipped !== undefined && authority.hiddenBecause
      ? { skippedProject: { dir: skipped, files: markdownFiles(skipped), because: authority.hiddenBecause } }
      : {}),
    ...(claudeSkipped !== undefined && authority.hiddenBecause
      ? {
          skippedClaudeProject: {
            dir: claudeSkipped,
            files: markdownFiles(claudeSkipped),
            because: authority.hiddenBecause,
          },
        }
      : {}),
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

export async function agentsCommand(
  pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">,
  ctx: AgentsCommandContext,
  io: CommandIo,
): Promise<void> {
  const inventory = readAgentInventory(pi, ctx, io.surface === "tui");
  if (io.mode === "json" && io.surface === "stdio") {
    io.stdout(agentsJsonLine(inventory));
    return;
  }
  const lines = agentsReportLines(inventory);
  if (io.surface === "tui") {
    await ctx.ui.custom<void>(
      (tui, theme, _keybindings, done) =>
        new AgentsView({
          lines,
          theme,
          rows: () => tui.terminal.rows,
          onClose: () => done(),
          requestRender: () => tui.requestRender(),
        }),
      FULL_SCREEN,
    );
  } else if (io.surface === "rpc") {
    io.notice(lines.join("\n"));
  } else {
    io.stdout(`${lines.join("\n")}\n`);
  }
}
