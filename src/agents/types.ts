import type { ThinkingLevel } from "../shared/thinking.ts";
import type { Isolation } from "../worktree/types.ts";
import type { SandboxLevel } from "../sandbox/levels.ts";

/** What a child starts from: only its task (`fresh`) or a copy of the main agent's conversation (`fork`). */
export type DispatchContext = "fresh" | "fork";

/** Where an agent definition comes from; later tiers shadow earlier ones on a name clash. */
export type AgentSource = "builtin" | "user" | "project";

/** Which of the user/project tiers a dispatch may use (builtins are always available unless shadowed). */
export type AgentScope = "user" | "project" | "both";

export interface AgentDefinition {
  name: string;
  /** Flattened to one line is the roster's job; this is the value as written. */
  description: string;
  /** Tool allowlist (`--tools`); absent means the child gets pi's default tools. */
  tools?: string[];
  model?: string;
  thinking?: ThinkingLevel;
  /**
   * Skill paths as written. Present (even empty) means the agent has a `skills` key: global skills are then
   * off in the child (`--no-skills`) and only these are loaded.
   */
  skills?: string[];
  /** Budget limits from the frontmatter (src/budget/limits.ts); absent: no limit of its own. */
  maxTurns?: number;
  maxTokens?: number;
  maxCost?: number;
  /** `context` key: `fork` starts the agent on a copy of the main conversation unless a call says otherwise. */
  context?: DispatchContext;
  /** `isolation: worktree` in the frontmatter: the agent runs in its own git worktree unless a call says otherwise. */
  isolation?: Isolation;
  /** `sandbox` key: the OS sandbox its child pi runs in (src/config/resolve-sandbox.ts says who may change it). */
  sandbox?: SandboxLevel;
  /** The Markdown body: the agent's system prompt, appended to pi's. */
  body: string;
  source: AgentSource;
  /** Absolute path of the .md file. */
  filePath: string;
  /** SHA-256 of the file's text as parsed: what a first-use approval of a project agent is remembered for. */
  contentSha256?: string;
  /**
   * A project agent named like a built-in or user agent: the agent it replaces. The name keeps that agent's
   * protection: at least its sandbox, at most its tools (src/agents/name-protection.ts).
   */
  shadows?: ShadowedAgent;
}

/** What a project agent that takes a name inherits of the agent that had it. */
export type ShadowedAgent = Pick<AgentDefinition, "name" | "source" | "filePath" | "tools" | "sandbox">;

/** A file that discovery skipped, and why (shown to the person once, never breaks pi). */
export interface AgentWarning {
  filePath: string;
  reason: string;
  /** True when the whole file was skipped; absent or false when the agent loaded without the named field. */
  skipped?: boolean;
}

export interface DiscoveryResult {
  /** Effective agents after shadowing, sorted by name. */
  agents: AgentDefinition[];
  warnings: AgentWarning[];
  /** The project agents folder in use (nearest `.pi/agents` walking up), if any. */
  projectAgentsDir?: string;
  /** The project agents folder that was found but not read (the project is not trusted, or the person said never). */
  projectAgentsSkipped?: string;
  userAgentsDir: string;
  builtinAgentsDir: string;
}
