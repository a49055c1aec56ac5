/**
 * What `/subagent-agents` shows: each dispatchable agent resolved as a dispatch would, the shadowed ones, the files left out, and its lines.
 */
import {
  type AgentDefinition,
  type AgentDialect,
  type AgentSource,
  type AgentWarning,
  type DispatchContext,
} from "../agents/parse.ts";
import {
  resolveModelConfig,
  resolveSandbox,
  resolveToolLimits,
  type ConfigLayers,
  type ResolvedSandbox,
  type SandboxSource,
} from "../config/resolve.ts";
import type { ResolvedModelConfig, ValueSource } from "../config/load.ts";
import { isMcpToolName } from "../shared/tool-patterns.ts";
import { MCP_WAYS_IN } from "../authority/tool-ceiling.ts";
import {
  grantAgentTools,
  PI_DEFAULT_TOOLS,
  type SessionTools,
  type ToolCeilingSetting,
} from "../authority/tool-ceiling.ts";
import type { ProjectAgentGate, ProjectAuthority } from "../authority/trust.ts";
import type { SandboxLevel } from "../sandbox/levels.ts";
import type { Isolation } from "../worktree/worktree.ts";
import { oneLine, stripTerminalControls } from "../shared/text.ts";
import { claudeTierText, unmatchedWordNote } from "../agents/claude-agent.ts";

/*
 * What /subagent-agents shows: every agent the main agent can dispatch, as a dispatch would resolve it now (tier,
 * model and thinking with their sources, tools after the ceiling, sandbox, isolation), the definitions a higher
 * tier shadows, and the files left out with the reason. Pure: the caller reads the three folders, the config
 * layers, pi's trust decision and the session's tools, and this puts them together with the same resolvers a
 * dispatch uses (resolve.ts, tool-ceiling.ts, resolve-sandbox.ts), so the list says what a call would get.
 */
/** One folder's agents and the problems found in it (`readAgentsDir`'s answer). */
export interface TierContents {
  agents: readonly AgentDefinition[];
  warnings: readonly AgentWarning[];
}

/** A project agents folder that was found and not read, with the `*.md` files in it. */
interface SkippedProjectFolder {
  dir: string;
  files: readonly string[];
  because: NonNullable<ProjectAuthority["hiddenBecause"]>;
}

export interface InventoryInputs {
  tiers: Record<AgentSource, TierContents>;
  /** Claude Code's folders that were read (`~/.claude/agents`, the project's `.claude/agents`). */
  claudeTiers?: { user?: TierContents; project?: TierContents };
  skippedProject?: SkippedProjectFolder;
  /** The project's `.claude/agents`, found and not read (for the same reason as `skippedProject`). */
  skippedClaudeProject?: SkippedProjectFolder;
  /** The config layers a dispatch reads (no project layer in an untrusted project). */
  layers: Required<ConfigLayers>;
  /** The main agent's current model (`provider/id`), which an agent without one inherits. */
  inheritedModel?: string;
  sandboxDefaults: { user?: SandboxLevel; project?: SandboxLevel };
  session: SessionTools;
  ceiling: ToolCeilingSetting;
  /** How a project agent's run is gated (src/authority/trust.ts), and whether one was approved on first use. */
  projectGate: ProjectAgentGate;
  approved: (agent: AgentDefinition) => boolean;
  /** True in the interactive TUI, where a first-use question can be asked. */
  canAsk: boolean;
}

/** The child's tools: a list, or pi's defaults (no `--tools`); `notGranted` is what the ceiling cut. */
interface InventoryTools {
  tools: string[];
  /** True when the child gets no `--tools` list: pi's default tools and the session's extension tools. */
  piDefaults: boolean;
  notGranted: string[];
  reason?: string;
  /**
   * pi 1.x: the MCP tool patterns its child reaches (empty: it starts no MCP server); absent on a pi without MCP,
   * and where neither the agent nor the session uses MCP.
   */
  mcp?: string[];
  /** Its `disallowedTools` from the file and the config layers. */
  disallowed: string[];
}

/** A project agent's first-use state where pi has no decision for the project. */
type FirstUseState = "approved" | "asks" | "refused-unasked";

interface InventoryAgent {
  name: string;
  tier: AgentSource;
  /** `claude`: a Claude Code agent file of that tier. */
  dialect?: AgentDialect;
  filePath: string;
  description: string;
  /** The definitions of the same name this one hides, lowest tier first. */
  shadows: Array<{ tier: AgentSource; dialect?: AgentDialect; filePath: string }>;
  model: ResolvedModelConfig["model"];
  thinking: ResolvedModelConfig["thinking"];
  tools: InventoryTools;
  sandbox: ResolvedSandbox;
  isolation: Isolation;
  context: DispatchContext;
  firstUse?: FirstUseState;
  /** Problems with the file that did not stop it from loading (an ignored field). */
  notes: string[];
}

interface ShadowedAgent {
  name: string;
  tier: AgentSource;
  dialect?: AgentDialect;
  filePath: string;
  shadowedBy: { tier: AgentSource; dialect?: AgentDialect; filePath: string };
}

interface LeftOutFile {
  filePath: string;
  tier: AgentSource;
  dialect?: AgentDialect;
  reason: string;
}

export interface AgentInventory {
  agents: InventoryAgent[];
  shadowed: ShadowedAgent[];
  leftOut: LeftOutFile[];
}

/** The tiers lowest first, as discovery merges them (src/agents/discover.ts): Claude Code's below pi's own. */
interface InventoryTier {
  tier: AgentSource;
  dialect?: AgentDialect;
  contents: TierContents;
}

function tiersInOrder(inputs: InventoryInputs): InventoryTier[] {
  const claude = inputs.claudeTiers ?? {};
  const tiers: Array<InventoryTier | undefined> = [
    { tier: "builtin", contents: inputs.tiers.builtin },
    claude.user ? { tier: "user", dialect: "claude", contents: claude.user } : undefined,
    { tier: "user", contents: inputs.tiers.user },
    claude.project ? { tier: "project", dialect: "claude", contents: claude.project } : undefined,
    { tier: "project", contents: inputs.tiers.project },
  ];
  return tiers.filter((tier): tier is InventoryTier => tier !== undefined);
}

/** `{ dialect: "claude" }` for a Claude file's entries, nothing for ours. */
function dialectOf(agent: { dialect?: AgentDialect }): { dialect?: AgentDialect } {
  return agent.dialect ? { dialect: agent.dialect } : {};
}

/** The reason a skipped project folder's files are left out, in the words of the trust notices. */
function skippedProjectReason(because: SkippedProjectFolder["because"]): string {
  return because === "policy"
    ? 'project agents are turned off ("$projectAgents": "never" in your subagent-isolation.json)'
    : "this project is not trusted in this session; to use them, trust the project: start pi with --approve, or run /trust";
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The tools a dispatch grants (src/authority/tool-ceiling.ts), as the view shows them. */
function toolsOf(agent: AgentDefinition, inputs: InventoryInputs): InventoryTools {
  const grant = grantAgentTools(agent, inputs.layers, { session: inputs.session, ceiling: inputs.ceiling });
  const disallowed = resolveToolLimits(agent, inputs.layers).disallowedTools ?? [];
  // The MCP line where it says something: the agent asks for MCP, or the session uses it (a way in is active).
  const sessionUsesMcp = inputs.session.active.some((tool) => isMcpToolName(tool) || MCP_WAYS_IN.includes(tool));
  const showMcp = grant.mcp !== undefined && (sessionUsesMcp || (agent.mcp?.length ?? 0) > 0);
  const mcp = showMcp ? { mcp: (grant.tools ?? []).filter(isMcpToolName) } : {};
  const shared = {
    notGranted: grant.notGranted,
    ...(grant.reason ? { reason: grant.reason } : {}),
    ...mcp,
    disallowed,
  };
  if (grant.tools !== undefined)
    return { tools: grant.tools.filter((tool) => !isMcpToolName(tool)), piDefaults: false, ...shared };
  const defaults = [...new Set([...PI_DEFAULT_TOOLS, ...inputs.session.extensionTools])].filter(
    (name) => name !== "subagent" && !isMcpToolName(name),
  );
  return { tools: defaults, piDefaults: true, ...shared };
}

function firstUseOf(agent: AgentDefinition, inputs: InventoryInputs): FirstUseState | undefined {
  if (agent.source !== "project" || inputs.projectGate === "run") return undefined;
  if (inputs.approved(agent)) return "approved";
  return inputs.canAsk ? "asks" : "refused-unasked";
}

export function buildAgentInventory(inputs: InventoryInputs): AgentInventory {
  const winners = new Map<string, AgentDefinition>();
  const hidden = new Map<string, AgentDefinition[]>();
  const tiers = tiersInOrder(inputs);
  const personal = new Map<string, AgentDefinition>();
  for (const { contents } of tiers) {
    for (const agent of contents.agents) {
      const earlier = winners.get(agent.name);
      if (earlier) hidden.set(agent.name, [...(hidden.get(agent.name) ?? []), earlier]);
      // As discovery merges the tiers (src/agents/discover.ts): a project agent keeps the protection of the name it
      // takes from a built-in or user agent, also over a Claude project file of that name.
      if (agent.source !== "project") personal.set(agent.name, agent);
      const replaced = agent.source === "project" ? personal.get(agent.name) : undefined;
      winners.set(
        agent.name,
        replaced
          ? {
              ...agent,
              shadows: {
                name: replaced.name,
                source: replaced.source,
                filePath: replaced.filePath,
                ...(replaced.tools ? { tools: replaced.tools } : {}),
                ...(replaced.sandbox ? { sandbox: replaced.sandbox } : {}),
                ...(replaced.mcp ? { mcp: replaced.mcp } : {}),
                ...(replaced.disallowedTools ? { disallowedTools: replaced.disallowedTools } : {}),
              },
            }
          : agent,
      );
    }
  }
  const allWarnings = tiers.flatMap(({ tier, dialect, contents }) =>
    contents.warnings.map((warning) => ({ tier, ...(dialect ? { dialect } : {}), warning })),
  );

  const agents = [...winners.values()]
    .sort((a, b) => compareNames(a.name, b.name))
    .map((agent): InventoryAgent => {
      const resolved = resolveModelConfig(agent, inputs.layers, inputs.inheritedModel);
      const sandbox = resolveSandbox({
        agent,
        userEntry: inputs.layers.user.entries[agent.name]?.sandbox,
        userDefault: inputs.sandboxDefaults.user,
        projectEntry: inputs.layers.project.entries[agent.name]?.sandbox,
        projectDefault: inputs.sandboxDefaults.project,
      });
      const firstUse = firstUseOf(agent, inputs);
      // Claude's model word that matched none of the person's models: the agent inherits, and says why.
      const wordNote =
        agent.claudeModel !== undefined && resolved.model.source === "inherited"
          ? [unmatchedWordNote(agent.claudeModel)]
          : [];
      return {
        name: agent.name,
        tier: agent.source,
        ...dialectOf(agent),
        filePath: agent.filePath,
        description: agent.description,
        shadows: (hidden.get(agent.name) ?? []).map((other) => ({
          tier: other.source,
          ...dialectOf(other),
          filePath: other.filePath,
        })),
        model: resolved.model,
        thinking: resolved.thinking,
        tools: toolsOf(agent, inputs),
        sandbox,
        isolation: agent.isolation ?? "none",
        context: agent.context ?? "fresh",
        ...(firstUse ? { firstUse } : {}),
        notes: [
          ...allWarnings
            .filter(({ warning }) => !warning.skipped && warning.filePath === agent.filePath)
            .map(({ warning }) => warning.reason),
          ...wordNote,
        ],
      };
    });

  const shadowed: ShadowedAgent[] = [];
  for (const [name, others] of [...hidden.entries()].sort(([a], [b]) => compareNames(a, b))) {
    const winner = winners.get(name)!;
    for (const other of others)
      shadowed.push({
        name,
        tier: other.source,
        ...dialectOf(other),
        filePath: other.filePath,
        shadowedBy: { tier: winner.source, ...dialectOf(winner), filePath: winner.filePath },
      });
  }

  const leftOut: LeftOutFile[] = allWarnings
    .filter(({ warning }) => warning.skipped === true)
    .map(({ tier, dialect, warning }) => ({
      filePath: warning.filePath,
      tier,
      ...(dialect ? { dialect } : {}),
      reason: warning.reason,
    }));
  const skippedFolders: Array<[SkippedProjectFolder | undefined, { dialect?: AgentDialect }]> = [
    [inputs.skippedClaudeProject, { dialect: "claude" }],
    [inputs.skippedProject, {}],
  ];
  for (const [skipped, dialect] of skippedFolders) {
    if (!skipped) continue;
    const reason = skippedProjectReason(skipped.because);
    const dir = skipped.dir.replace(/\/+$/, "");
    for (const file of [...skipped.files].sort(compareNames))
      leftOut.push({ filePath: `${dir}/${file}`, tier: "project", ...dialect, reason });
  }
  return { agents, shadowed, leftOut };
}

/*
 * How /subagent-agents reads: the same lines in the TUI view and on stdout in print mode, and one JSON line in
 * JSON mode. Pure. Everything taken from a file (descriptions, paths, reasons) has its control sequences removed,
 * since a project's file must not drive the person's terminal.
 *
 *   Subagents the main agent can dispatch: 2
 *
 *   explore · built-in
 *     Read-only and fast. Finds where code lives …
 *     model: fake/fake-model (inherited from the main agent) · thinking: pi's default
 *     tools: read, grep, find, ls
 *     sandbox: off (default) · isolation: none · context: fresh
 *     file: /…/agents/explore.md
 *
 *   reviewer · user, shadows built-in
 *     …
 *
 *   Shadowed (a higher tier defines the same name):
 *   - reviewer · built-in · /…/agents/reviewer.md · shadowed by user /…/agents/reviewer.md
 *
 *   Left out:
 *   - /…/.pi/agents/broken.md · project: no frontmatter …
 */
/** Characters of description shown per agent (flattened to one line). */
const AGENTS_DESCRIPTION_MAX = 300;

export const NO_AGENTS = "No subagent can be dispatched: no agent file was found.";

function agentsTitle(count: number): string {
  return `Subagents the main agent can dispatch: ${count}`;
}

export const SHADOWED_HEADING = "Shadowed (a higher tier defines the same name):";
export const LEFT_OUT_HEADING = "Left out:";

/** `built-in`, `user`, `project`; `claude (user)`, `claude (project)` for Claude Code's files. */
function tierLabel(tier: AgentSource, dialect?: AgentDialect): string {
  if (dialect === "claude") return claudeTierText(tier);
  return tier === "builtin" ? "built-in" : tier;
}

const VALUE_SOURCE_LABELS: Record<ValueSource, string> = {
  call: "the call",
  process: "this process (/subagent-config)",
  project: "project subagent-isolation.json",
  user: "user subagent-isolation.json",
  frontmatter: "frontmatter",
  inherited: "inherited from the main agent",
};

const SANDBOX_SOURCE_LABELS: Record<SandboxSource, string> = {
  user: "user subagent-isolation.json",
  frontmatter: "frontmatter",
  $sandbox: '"$sandbox" in user subagent-isolation.json',
  project: "project subagent-isolation.json",
  "project $sandbox": '"$sandbox" in project subagent-isolation.json',
  call: "the call",
  default: "default",
  "resumed task": "the task it resumes, which ran in it",
};

const FIRST_USE_TEXTS: Record<FirstUseState, string> = {
  approved: "approved by you on first use",
  asks: "asks you before its first run (pi has no trust decision for this project)",
  "refused-unasked": "refused here until you approve it once in the TUI (nobody can be asked outside it)",
};

function clean(text: string): string {
  return stripTerminalControls(text);
}

function modelText(agent: InventoryAgent): string {
  const model =
    agent.model.value !== undefined
      ? `${clean(agent.model.value)} (${VALUE_SOURCE_LABELS[agent.model.source ?? "inherited"]})`
      : "pi's default";
  const thinking =
    agent.thinking.value !== undefined
      ? `${agent.thinking.value} (${VALUE_SOURCE_LABELS[agent.thinking.source ?? "frontmatter"]})`
      : "pi's default";
  return `model: ${model} · thinking: ${thinking}`;
}

function toolsText(agent: InventoryAgent): string[] {
  const tools = agent.tools;
  const list = tools.tools.length > 0 ? tools.tools.map(clean).join(", ") : "none";
  const lines = [`tools: ${list}${tools.piDefaults ? " (pi's defaults: the agent lists none)" : ""}`];
  if (tools.mcp !== undefined)
    lines.push(
      tools.mcp.length > 0
        ? `mcp: ${tools.mcp.map(clean).join(", ")} (only these servers start)`
        : "mcp: none (no MCP server starts)",
    );
  if (tools.disallowed.length > 0) lines.push(`disallowed: ${tools.disallowed.map(clean).join(", ")}`);
  if (tools.notGranted.length > 0)
    lines.push(
      `not granted: ${tools.notGranted.map(clean).join(", ")} (${tools.reason ?? "not active in the main session"})`,
    );
  return lines;
}

function headerOf(agent: InventoryAgent): string {
  const shadows = [...new Set(agent.shadows.map((other) => tierLabel(other.tier, other.dialect)))];
  return `${clean(agent.name)} · ${tierLabel(agent.tier, agent.dialect)}${shadows.length > 0 ? `, shadows ${shadows.join(" and ")}` : ""}`;
}

/** One agent's block: its header and indented detail lines. */
function agentLines(agent: InventoryAgent): string[] {
  const details = [
    oneLine(agent.description, AGENTS_DESCRIPTION_MAX),
    modelText(agent),
    ...toolsText(agent),
    `sandbox: ${agent.sandbox.level} (${SANDBOX_SOURCE_LABELS[agent.sandbox.source]}) · isolation: ${agent.isolation} · context: ${agent.context}`,
    ...(agent.firstUse ? [`trust: ${FIRST_USE_TEXTS[agent.firstUse]}`] : []),
    ...agent.notes.map((note) => `note: ${oneLine(note, AGENTS_DESCRIPTION_MAX)}`),
    `file: ${clean(agent.filePath)}`,
  ];
  return [headerOf(agent), ...details.map((line) => `  ${line}`)];
}

/** The whole report, one string a line; blank lines separate the agents and the sections. */
export function agentsReportLines(inventory: AgentInventory): string[] {
  const lines: string[] = [inventory.agents.length === 0 ? NO_AGENTS : agentsTitle(inventory.agents.length)];
  for (const agent of inventory.agents) lines.push("", ...agentLines(agent));
  if (inventory.shadowed.length > 0) {
    lines.push("", SHADOWED_HEADING);
    for (const item of inventory.shadowed) {
      lines.push(
        `- ${clean(item.name)} · ${tierLabel(item.tier, item.dialect)} · ${clean(item.filePath)} · shadowed by ${tierLabel(item.shadowedBy.tier, item.shadowedBy.dialect)} ${clean(item.shadowedBy.filePath)}`,
      );
    }
  }
  if (inventory.leftOut.length > 0) {
    lines.push("", LEFT_OUT_HEADING);
    for (const item of inventory.leftOut)
      lines.push(
        `- ${clean(item.filePath)} · ${tierLabel(item.tier, item.dialect)}: ${oneLine(item.reason, AGENTS_DESCRIPTION_MAX)}`,
      );
  }
  return lines;
}

/** JSON mode's line: the inventory as it is, with `type` first. */
export function agentsJsonLine(inventory: AgentInventory): string {
  return `${JSON.stringify({ type: "subagent_agents", ...inventory })}\n`;
}
