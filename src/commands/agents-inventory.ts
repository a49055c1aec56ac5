/**
 * What /subagent-agents shows: every agent the main agent can dispatch, as a dispatch would resolve it now (tier,
 * model and thinking with their sources, tools after the ceiling, sandbox, isolation), the definitions a higher
 * tier shadows, and the files left out with the reason. Pure: the caller reads the three folders, the config
 * layers, pi's trust decision and the session's tools, and this puts them together with the same resolvers a
 * dispatch uses (resolve.ts, tool-ceiling.ts, resolve-sandbox.ts), so the list says what a call would get.
 */
import type { AgentDefinition, AgentSource, AgentWarning, DispatchContext } from "../agents/types.ts";
import { resolveModelConfig } from "../config/resolve.ts";
import type { ConfigLayers } from "../config/resolve.ts";
import type { ResolvedModelConfig } from "../config/types.ts";
import { grantTools, PI_DEFAULT_TOOLS } from "../authority/tool-ceiling.ts";
import type { SessionTools, ToolCeilingSetting } from "../authority/tool-ceiling.ts";
import type { ProjectAgentGate, ProjectAuthority } from "../authority/project-trust.ts";
import { protectedTools, replacedAgentText } from "../agents/name-protection.ts";
import { resolveSandbox } from "../config/resolve-sandbox.ts";
import type { ResolvedSandbox } from "../config/resolve-sandbox.ts";
import type { SandboxLevel } from "../sandbox/levels.ts";
import type { Isolation } from "../worktree/types.ts";

/** One folder's agents and the problems found in it (`readAgentsDir`'s answer). */
export interface TierContents {
  agents: readonly AgentDefinition[];
  warnings: readonly AgentWarning[];
}

/** A project agents folder that was found and not read, with the `*.md` files in it. */
export interface SkippedProjectFolder {
  dir: string;
  files: readonly string[];
  because: NonNullable<ProjectAuthority["hiddenBecause"]>;
}

export interface InventoryInputs {
  tiers: Record<AgentSource, TierContents>;
  skippedProject?: SkippedProjectFolder;
  /** The config layers a dispatch reads (no project layer in an untrusted project). */
  layers: Required<ConfigLayers>;
  /** The main agent's current model (`provider/id`), which an agent without one inherits. */
  inheritedModel?: string;
  sandboxDefaults: { user?: SandboxLevel; project?: SandboxLevel };
  session: SessionTools;
  ceiling: ToolCeilingSetting;
  /** How a project agent's run is gated (project-trust.ts), and whether one was approved on first use. */
  projectGate: ProjectAgentGate;
  approved: (agent: AgentDefinition) => boolean;
  /** True in the interactive TUI, where a first-use question can be asked. */
  canAsk: boolean;
}

/** The child's tools: a list, or pi's defaults (no `--tools`); `notGranted` is what the ceiling cut. */
export interface InventoryTools {
  tools: string[];
  /** True when the child gets no `--tools` list: pi's default tools and the session's extension tools. */
  piDefaults: boolean;
  notGranted: string[];
  reason?: string;
}

/** A project agent's first-use state where pi has no decision for the project. */
export type FirstUseState = "approved" | "asks" | "refused-unasked";

export interface InventoryAgent {
  name: string;
  tier: AgentSource;
  filePath: string;
  description: string;
  /** The definitions of the same name this one hides, lowest tier first. */
  shadows: Array<{ tier: AgentSource; filePath: string }>;
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

export interface ShadowedAgent {
  name: string;
  tier: AgentSource;
  filePath: string;
  shadowedBy: { tier: AgentSource; filePath: string };
}

export interface LeftOutFile {
  filePath: string;
  tier: AgentSource;
  reason: string;
}

export interface AgentInventory {
  agents: InventoryAgent[];
  shadowed: ShadowedAgent[];
  leftOut: LeftOutFile[];
}

export const TIER_ORDER: readonly AgentSource[] = Object.freeze(["builtin", "user", "project"]);

/** The reason a skipped project folder's files are left out, in the words of the trust notices. */
export function skippedProjectReason(because: SkippedProjectFolder["because"]): string {
  return because === "policy"
    ? 'project agents are turned off ("$projectAgents": "never" in your subagent-isolation.json)'
    : "this project is not trusted in this session; to use them, trust the project: start pi with --approve, or run /trust";
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The tools a dispatch grants: a project agent that replaces a personal one bounded by it first, then the ceiling. */
function toolsOf(agent: AgentDefinition, inputs: InventoryInputs): InventoryTools {
  const bounded = protectedTools(agent);
  const grant = grantTools({ agentTools: bounded.tools, session: inputs.session, ceiling: inputs.ceiling });
  if (bounded.cut.length > 0 && agent.shadows) {
    const reason = replacedAgentText(agent.shadows);
    return { tools: grant.tools ?? [], piDefaults: false, notGranted: [...bounded.cut, ...grant.notGranted], reason: grant.reason ? `${reason}; ${grant.reason}` : reason };
  }
  if (grant.tools !== undefined) {
    return { tools: grant.tools, piDefaults: false, notGranted: grant.notGranted, ...(grant.reason ? { reason: grant.reason } : {}) };
  }
  const defaults = [...new Set([...PI_DEFAULT_TOOLS, ...inputs.session.extensionTools])].filter((name) => name !== "subagent");
  return { tools: defaults, piDefaults: true, notGranted: [] };
}

function firstUseOf(agent: AgentDefinition, inputs: InventoryInputs): FirstUseState | undefined {
  if (agent.source !== "project" || inputs.projectGate === "run") return undefined;
  if (inputs.approved(agent)) return "approved";
  return inputs.canAsk ? "asks" : "refused-unasked";
}

export function buildAgentInventory(inputs: InventoryInputs): AgentInventory {
  const winners = new Map<string, AgentDefinition>();
  const hidden = new Map<string, AgentDefinition[]>();
  for (const tier of TIER_ORDER) {
    for (const agent of inputs.tiers[tier].agents) {
      const earlier = winners.get(agent.name);
      if (earlier) hidden.set(agent.name, [...(hidden.get(agent.name) ?? []), earlier]);
      // As discovery merges the tiers (src/agents/merge.ts): a project agent keeps the protection of the name it takes.
      const replaced = agent.source === "project" && earlier && earlier.source !== "project" ? earlier : undefined;
      winners.set(agent.name, replaced ? { ...agent, shadows: { name: replaced.name, source: replaced.source, filePath: replaced.filePath, ...(replaced.tools ? { tools: replaced.tools } : {}), ...(replaced.sandbox ? { sandbox: replaced.sandbox } : {}) } } : agent);
    }
  }
  const allWarnings = TIER_ORDER.flatMap((tier) => inputs.tiers[tier].warnings.map((warning) => ({ tier, warning })));

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
      return {
        name: agent.name,
        tier: agent.source,
        filePath: agent.filePath,
        description: agent.description,
        shadows: (hidden.get(agent.name) ?? []).map((other) => ({ tier: other.source, filePath: other.filePath })),
        model: resolved.model,
        thinking: resolved.thinking,
        tools: toolsOf(agent, inputs),
        sandbox,
        isolation: agent.isolation ?? "none",
        context: agent.context ?? "fresh",
        ...(firstUse ? { firstUse } : {}),
        notes: allWarnings.filter(({ warning }) => !warning.skipped && warning.filePath === agent.filePath).map(({ warning }) => warning.reason),
      };
    });

  const shadowed: ShadowedAgent[] = [];
  for (const [name, others] of [...hidden.entries()].sort(([a], [b]) => compareNames(a, b))) {
    const winner = winners.get(name)!;
    for (const other of others) shadowed.push({ name, tier: other.source, filePath: other.filePath, shadowedBy: { tier: winner.source, filePath: winner.filePath } });
  }

  const leftOut: LeftOutFile[] = allWarnings
    .filter(({ warning }) => warning.skipped === true)
    .map(({ tier, warning }) => ({ filePath: warning.filePath, tier, reason: warning.reason }));
  if (inputs.skippedProject) {
    const reason = skippedProjectReason(inputs.skippedProject.because);
    const dir = inputs.skippedProject.dir.replace(/\/+$/, "");
    for (const file of [...inputs.skippedProject.files].sort(compareNames)) leftOut.push({ filePath: `${dir}/${file}`, tier: "project", reason });
  }
  return { agents, shadowed, leftOut };
}
