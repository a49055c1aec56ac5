/**
 * One agent file as text: its frontmatter, its definition or the reason it is none, safe names, the YAML library, and the protection of built-in and user agents' names.
 */
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../shared/thinking.ts";
import { isIsolation, ISOLATIONS, type Isolation } from "../worktree/worktree.ts";
import { isSandboxLevel, sandboxValueProblem, type SandboxLevel } from "../sandbox/levels.ts";
import { mcpEntryPattern, mcpEntryProblem, patternCovers } from "../shared/tool-patterns.ts";
import { mapClaudeFrontmatter, quotePlainValues, type ClaudeModelWord } from "./claude-agent.ts";
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { BUDGET_KEYS, budgetValue, budgetValueProblem } from "../budget/limits.ts";
import { LOOP_GUARD_RULE, loopGuardValue } from "../budget/loop-setting.ts";
import {
  VERIFY_ROUNDS_RULE,
  VERIFY_TIMEOUT_RULE,
  verifyRoundsValue,
  verifyTimeoutValue,
} from "../budget/verify-setting.ts";

/** What a child starts from: only its task (`fresh`) or a copy of the main agent's conversation (`fork`). */
export type DispatchContext = "fresh" | "fork";

/** Where an agent definition comes from; later tiers shadow earlier ones on a name clash. */
export type AgentSource = "builtin" | "user" | "project";

/**
 * The format of an agent file: ours (absent), or Claude Code's (`~/.claude/agents`, `.claude/agents`), read through
 * the mapping of src/agents/claude-agent.ts. A Claude file keeps its tier's `source`, so every rule of that tier
 * (trust, first-use approval, a project agent's protected names) applies to it unchanged.
 */
export type AgentDialect = "claude";

/** Which of the user/project tiers a dispatch may use (builtins are always available unless shadowed). */
export type AgentScope = "user" | "project" | "both";

export interface AgentDefinition {
  name: string;
  /** Flattened to one line is the roster's job; this is the value as written. */
  description: string;
  /** Tool allowlist (`--tools`); absent means the child gets pi's default tools. */
  tools?: string[];
  /**
   * `mcp`: the MCP servers (`github`) or tool patterns (`mcp__github__get_*`) its child may reach (pi 1.x; see
   * src/authority/tool-ceiling.ts). Absent or empty: none, and the child starts no MCP server.
   */
  mcp?: string[];
  /** `disallowedTools`: tool names or `*` patterns removed from its child after everything else (nested ones too). */
  disallowedTools?: string[];
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
  /** `loopGuard` key (src/budget/loop-setting.ts): identical tool calls in a row before a nudge; LOOP_GUARD_OFF: off. */
  loopGuard?: number;
  /** `context` key: `fork` starts the agent on a copy of the main conversation unless a call says otherwise. */
  context?: DispatchContext;
  /** `isolation: worktree` in the frontmatter: the agent runs in its own git worktree unless a call says otherwise. */
  isolation?: Isolation;
  /** `sandbox` key: the OS sandbox its child pi runs in (src/config/resolve.ts says who may change it). */
  sandbox?: SandboxLevel;
  /** `deliverableCheck: false`: its final message is not checked for being the deliverable (src/run/deliverable.ts). */
  deliverableCheck?: boolean;
  /**
   * `verify`: a shell command run when its child's run ends (src/run/verify.ts); a failure sends the child back,
   * for at most `verifyRounds` rounds (default 2), each command limited to `verifyTimeout` seconds (default 120).
   */
  verify?: string;
  verifyRounds?: number;
  verifyTimeout?: number;
  /** The Markdown body: the agent's system prompt, appended to pi's. */
  body: string;
  source: AgentSource;
  /** `claude`: a Claude Code agent file, mapped (src/agents/claude-agent.ts). */
  dialect?: AgentDialect;
  /**
   * A Claude file's `model: sonnet` (`opus`, `haiku`): matched against the person's models at dispatch
   * (src/config/resolve.ts); `model` is then absent.
   */
  claudeModel?: ClaudeModelWord;
  /** Absolute path of the .md file. */
  filePath: string;
  /** SHA-256 of the file's text as parsed: what a first-use approval of a project agent is remembered for. */
  contentSha256?: string;
  /**
   * A project agent named like a built-in or user agent: the agent it replaces. The name keeps that agent's
   * protection: at least its sandbox, at most its tools (src/agents/parse.ts).
   */
  shadows?: ShadowedAgent;
}

/** What a project agent that takes a name inherits of the agent that had it. */
export type ShadowedAgent = Pick<
  AgentDefinition,
  "name" | "source" | "filePath" | "tools" | "sandbox" | "mcp" | "disallowedTools"
>;

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
  /** `~/.claude/agents`, when the Claude Code tiers are read (`$claudeAgents` not false). */
  claudeUserAgentsDir?: string;
  /** The project's `.claude/agents` in use (nearest walking up), if any. */
  claudeProjectAgentsDir?: string;
  /** The project's `.claude/agents` found but not read, for the same reason as `projectAgentsSkipped`. */
  claudeProjectAgentsSkipped?: string;
}

/*
 * Which agent names are safe. A name becomes a path fragment, an object key (in subagent-isolation.json and
 * in memory) and a command argument, so anything that could walk out of a folder, reach an object's
 * prototype or be misread on a command line is refused.
 */
/** Keys that would reach an object's prototype machinery if used as property names. */
const RESERVED_OBJECT_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

export function isReservedObjectKey(name: string): boolean {
  return RESERVED_OBJECT_KEYS.includes(name);
}

// C0 controls, DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `name` cannot be an agent name, or undefined when it can. */
export function agentNameProblem(name: string): string | undefined {
  if (name.length === 0) return "the name is empty";
  if (CONTROL_CHARACTER.test(name)) return "the name contains a control character";
  if (name.includes("/") || name.includes("\\")) return "the name contains a path separator (/ or \\)";
  if (name.includes("..")) return 'the name contains ".."';
  if (name === ".") return 'the name is "."';
  if (/\s/.test(name)) return "the name contains whitespace";
  if (isReservedObjectKey(name)) return `the name "${name}" is reserved`;
  if (name.startsWith("$")) return 'the name starts with "$", which subagent-isolation.json reserves for its own keys';
  return undefined;
}

/*
 * The `yaml` package, which parses every agent file's frontmatter, loaded on first use and through Node's own
 * `require`: pi's loader (jiti) would compile the package again at every load, Node's loader is several times faster
 * for a plain CommonJS package (and, on pi 1.x, uses Node's compile cache). The roster cache spares parsing files
 * that did not change, so most starts never load it.
 */
type YamlModule = typeof import("yaml");

let loaded: YamlModule | undefined;

function yamlLibrary(): YamlModule {
  loaded ??= createRequire(import.meta.url)("yaml") as YamlModule;
  return loaded;
}

/*
 * Splits an agent file into its YAML frontmatter and its Markdown body. Pure: text in, parts or a reason out.
 * A UTF-8 BOM and CRLF line endings are accepted; the body keeps its own line breaks (as LF).
 */
export type FrontmatterSplit = { ok: true; yaml: string; body: string } | { ok: false; reason: string };

const FENCE = /^---[ \t]*$/;

export function splitFrontmatter(text: string): FrontmatterSplit {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const lines = normalized.split("\n");
  if (!FENCE.test(lines[0] ?? "")) {
    return { ok: false, reason: "no frontmatter (the file must start with a --- line)" };
  }
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (close < 0) return { ok: false, reason: "the frontmatter is never closed (no second --- line)" };
  return {
    ok: true,
    yaml: lines.slice(1, close).join("\n"),
    body: lines
      .slice(close + 1)
      .join("\n")
      .trim(),
  };
}

/*
 * Turns the text of one agent file into an agent definition, or into the reason it cannot be one. Pure: no
 * file system, no pi. Required fields that are wrong skip the file; optional fields that are wrong are
 * dropped with a note, and the agent still loads.
 */
/** On success, `ignored` lists the optional fields that were present but invalid, and were therefore ignored. */
export type ParsedAgentFile =
  | {
      ok: true;
      agent: AgentDefinition;
      ignored: string[];
      /** A `sandbox` value that is no level: the agent runs read-only (the warning says why). */
      sandboxProblem?: string;
      /** A Claude file's fields, tools and values that have no meaning here (src/agents/claude-agent.ts). */
      notMapped?: string[];
    }
  | { ok: false; reason: string };

/** Quotes a value for a message, escaping anything that could upset a terminal. */
export function quoteForMessage(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  const clipped = text.length > 80 ? `${text.slice(0, 79)}…` : text;
  return JSON.stringify(clipped);
}

function firstLine(message: string): string {
  return message.split("\n", 1)[0]?.trim() ?? "";
}

function parseFrontmatterYaml(
  yaml: string,
): { ok: true; data: Record<string, unknown> } | { ok: false; reason: string } {
  let data: unknown;
  try {
    // logLevel "error": real errors still throw, but YAML warnings (unknown tags) are not printed by the library.
    data = yamlLibrary().parse(yaml, { logLevel: "error" });
  } catch (error) {
    const message = error instanceof Error ? firstLine(error.message) : String(error);
    return { ok: false, reason: `invalid YAML in the frontmatter: ${message}` };
  }
  if (data === null || data === undefined) return { ok: true, data: {} };
  if (typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, reason: "the frontmatter is not a YAML mapping of keys to values" };
  }
  return { ok: true, data: data as Record<string, unknown> };
}

function requiredString(data: Record<string, unknown>, key: string): { value: string } | { reason: string } {
  if (!Object.hasOwn(data, key) || data[key] === null) return { reason: `missing required field "${key}"` };
  const value = data[key];
  if (typeof value !== "string" || value.trim() === "") return { reason: `"${key}" must be a non-empty string` };
  return { value };
}

type ListField = { present: false } | { present: true; list: string[] } | { present: true; problem: string };

/** A YAML list of strings or one comma-separated string; blanks dropped, duplicates removed (first wins). */
function readList(data: Record<string, unknown>, key: string): ListField {
  if (!Object.hasOwn(data, key)) return { present: false };
  const raw = data[key];
  let items: string[];
  if (raw === null) items = [];
  else if (typeof raw === "string") items = raw.split(",");
  else if (Array.isArray(raw) && raw.every((item) => typeof item === "string")) items = raw as string[];
  else return { present: true, problem: `"${key}" must be a list of names or a comma-separated string` };
  const cleaned = items.map((item) => item.trim()).filter((item) => item !== "");
  return { present: true, list: [...new Set(cleaned)] };
}

/**
 * Largest frontmatter parsed. YAML parsing cost grows faster than the text (a mapping with tens of thousands
 * of keys takes many seconds), and a real agent's frontmatter is a few short fields.
 */
export const FRONTMATTER_MAX_CHARS = 16 * 1024;

/** The digest a first-use approval is remembered for: the file's whole text, so any edit asks again. */
function contentDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function parseAgentFile(
  text: string,
  filePath: string,
  source: AgentSource,
  dialect?: AgentDialect,
): ParsedAgentFile {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  if (split.yaml.length > FRONTMATTER_MAX_CHARS) {
    return {
      ok: false,
      reason: `the frontmatter is too large (${split.yaml.length} characters; the limit is ${FRONTMATTER_MAX_CHARS})`,
    };
  }
  let yaml = parseFrontmatterYaml(split.yaml);
  // Claude Code reads a plain value holding ": " (its generated descriptions do); YAML does not, unless quoted.
  const quoted = !yaml.ok && dialect === "claude" ? quotePlainValues(split.yaml) : undefined;
  if (quoted !== undefined) {
    const again = parseFrontmatterYaml(quoted);
    if (again.ok) yaml = again;
  }
  if (!yaml.ok) return yaml;
  const claude = dialect === "claude" ? mapClaudeFrontmatter(yaml.data, filePath) : undefined;
  const data = claude ? claude.data : yaml.data;

  const name = requiredString(data, "name");
  if ("reason" in name) return { ok: false, reason: name.reason };
  const nameProblem = agentNameProblem(name.value);
  if (nameProblem) return { ok: false, reason: `invalid name ${quoteForMessage(name.value)}: ${nameProblem}` };
  const description = requiredString(data, "description");
  if ("reason" in description) return { ok: false, reason: description.reason };

  const agent: AgentDefinition = {
    name: name.value,
    description: description.value,
    body: split.body,
    source,
    filePath,
    contentSha256: contentDigest(text),
    ...(dialect ? { dialect } : {}),
    ...(claude?.modelWord ? { claudeModel: claude.modelWord } : {}),
  };
  const ignored: string[] = [];

  const tools = readList(data, "tools");
  if (tools.present && "problem" in tools) ignored.push(tools.problem);
  // An empty tools value means "not set": an agent with no tools at all is never what a blank line meant.
  else if (tools.present && tools.list.length > 0) agent.tools = tools.list;
  // A Claude file that listed only tools pi lacks had only those there: here it has none.
  else if (claude?.noTools) agent.tools = [];

  const mcp = readList(data, "mcp");
  if (mcp.present && "problem" in mcp) ignored.push(mcp.problem);
  else if (mcp.present) {
    const bad = mcp.list.filter((entry) => mcpEntryProblem(entry) !== undefined);
    for (const entry of bad) ignored.push(`"mcp" entry ${quoteForMessage(entry)}: ${mcpEntryProblem(entry)}`);
    agent.mcp = mcp.list.filter((entry) => !bad.includes(entry));
  }

  const disallowed = readList(data, "disallowedTools");
  if (disallowed.present && "problem" in disallowed) ignored.push(disallowed.problem);
  else if (disallowed.present && disallowed.list.length > 0) agent.disallowedTools = disallowed.list;

  const skills = readList(data, "skills");
  if (skills.present && "problem" in skills) ignored.push(skills.problem);
  // A skills key, even an empty one, turns the global skills off for this agent.
  else if (skills.present) agent.skills = skills.list;

  const model = data["model"];
  if (typeof model === "string" && model.trim() !== "") agent.model = model.trim();
  else if (model !== undefined && model !== null) ignored.push(`"model" must be a non-empty string`);

  const thinking = data["thinking"];
  if (isThinkingLevel(thinking)) agent.thinking = thinking satisfies ThinkingLevel;
  else if (thinking !== undefined && thinking !== null) {
    ignored.push(`"thinking" must be one of ${THINKING_LEVELS.join(", ")} (got ${quoteForMessage(thinking)})`);
  }

  for (const key of BUDGET_KEYS) {
    const raw = data[key];
    if (raw === undefined || raw === null) continue;
    const value = budgetValue(key, raw);
    if (value === undefined) ignored.push(`${budgetValueProblem(key, raw)} (got ${quoteForMessage(raw)})`);
    else agent[key] = value;
  }
  const loopGuard = data["loopGuard"];
  if (loopGuard !== undefined && loopGuard !== null) {
    const value = loopGuardValue(loopGuard);
    if (value === undefined) ignored.push(`${LOOP_GUARD_RULE} (got ${quoteForMessage(loopGuard)})`);
    else agent.loopGuard = value;
  }
  const context = data["context"];
  if (context === "fresh" || context === "fork") agent.context = context;
  else if (context !== undefined && context !== null)
    ignored.push(`"context" must be fresh or fork (got ${quoteForMessage(context)})`);
  const isolation = data["isolation"];
  if (isIsolation(isolation)) agent.isolation = isolation;
  else if (isolation !== undefined && isolation !== null) {
    ignored.push(`"isolation" must be one of ${ISOLATIONS.join(", ")} (got ${quoteForMessage(isolation)})`);
  }

  const deliverableCheck = data["deliverableCheck"];
  if (typeof deliverableCheck === "boolean") agent.deliverableCheck = deliverableCheck;
  else if (deliverableCheck !== undefined && deliverableCheck !== null)
    ignored.push(`"deliverableCheck" must be true or false (got ${quoteForMessage(deliverableCheck)})`);

  const verify = data["verify"];
  if (typeof verify === "string" && verify.trim() !== "") agent.verify = verify.trim();
  else if (verify !== undefined && verify !== null)
    ignored.push(`"verify" must be a non-empty shell command (got ${quoteForMessage(verify)})`);
  const verifyRounds = data["verifyRounds"];
  if (verifyRounds !== undefined && verifyRounds !== null) {
    const value = verifyRoundsValue(verifyRounds);
    if (value === undefined) ignored.push(`${VERIFY_ROUNDS_RULE} (got ${quoteForMessage(verifyRounds)})`);
    else agent.verifyRounds = value;
  }
  const verifyTimeout = data["verifyTimeout"];
  if (verifyTimeout !== undefined && verifyTimeout !== null) {
    const value = verifyTimeoutValue(verifyTimeout);
    if (value === undefined) ignored.push(`${VERIFY_TIMEOUT_RULE} (got ${quoteForMessage(verifyTimeout)})`);
    else agent.verifyTimeout = value;
  }

  const sandbox = data["sandbox"];
  let sandboxProblem: string | undefined;
  if (isSandboxLevel(sandbox)) agent.sandbox = sandbox;
  else if (sandbox !== undefined && sandbox !== null) {
    // A mistyped level (`readonly`, `strict`) asked for a sandbox: the strictest one, never none.
    agent.sandbox = "read-only";
    sandboxProblem = sandboxValueProblem(sandbox);
  }

  return {
    ok: true,
    agent,
    ignored,
    ...(sandboxProblem ? { sandboxProblem } : {}),
    ...(claude && claude.notMapped.length > 0 ? { notMapped: claude.notMapped } : {}),
  };
}

/*
 * A name keeps its protection. A project agent named like a built-in or user agent (a planted
 * `.pi/agents/explore.md`, say) runs with no more tools than the agent it replaces: its own list narrowed to that
 * agent's, or that agent's list when it has none; no MCP entry that agent's do not cover; and that agent's
 * `disallowedTools` on top of its own. (Its sandbox is at least that agent's: resolve-sandbox.ts.) Pure.
 */
export interface ProtectedTools {
  /** The tools list the agent runs with (absent: none, pi's defaults, as both agents allow). */
  tools?: string[];
  /** Its `mcp` entries that the replaced agent's cover (absent: none). */
  mcp?: string[];
  /** Its `disallowedTools` and the replaced agent's. */
  disallowed?: string[];
  /** Tools and MCP entries the project agent listed that the replaced agent does not have. */
  cut: string[];
}

export function protectedTools(
  agent: Pick<AgentDefinition, "tools" | "shadows" | "mcp" | "disallowedTools">,
): ProtectedTools {
  const bound = agent.shadows?.tools;
  const disallowedAll = [...new Set([...(agent.disallowedTools ?? []), ...(agent.shadows?.disallowedTools ?? [])])];
  const disallowed = disallowedAll.length > 0 ? { disallowed: disallowedAll } : {};
  const mcpBound = agent.shadows ? (agent.shadows.mcp ?? []).map(mcpEntryPattern) : undefined;
  const mcpKept = (agent.mcp ?? []).filter(
    (entry) => mcpBound === undefined || mcpBound.some((outer) => patternCovers(outer, mcpEntryPattern(entry))),
  );
  const mcpCut = (agent.mcp ?? []).filter((entry) => !mcpKept.includes(entry));
  const mcp = mcpKept.length > 0 ? { mcp: mcpKept } : {};
  if (bound === undefined)
    return agent.tools === undefined
      ? { ...mcp, ...disallowed, cut: mcpCut }
      : { tools: [...agent.tools], ...mcp, ...disallowed, cut: mcpCut };
  if (agent.tools === undefined) return { tools: [...bound], ...mcp, ...disallowed, cut: mcpCut };
  return {
    tools: agent.tools.filter((tool) => bound.includes(tool)),
    ...mcp,
    ...disallowed,
    cut: [...agent.tools.filter((tool) => !bound.includes(tool)), ...mcpCut],
  };
}

/** `the built-in agent "explore" it replaces`: why a shadowing project agent's tools were cut. */
export function replacedAgentText(shadowed: NonNullable<AgentDefinition["shadows"]>): string {
  return `not in the tools of the ${shadowed.source === "builtin" ? "built-in" : "user"} agent "${shadowed.name}" it replaces`;
}
