/**
 * Claude Code's agent files (`~/.claude/agents/*.md`, a project's `.claude/agents/*.md`) read as they are: their
 * frontmatter mapped onto ours, what cannot be mapped named, Claude's model words matched against the person's
 * models, and `$claudeAgents`. Pure.
 */
import { dirname, join } from "node:path";
import { MCP_PREFIX } from "../shared/tool-patterns.ts";

/*
 * The mapping, done on the frontmatter's data before our own parser reads it (src/agents/parse.ts), so that every
 * check of ours (names, lists, budgets, isolation) applies unchanged. A Claude file gives only the fields Claude
 * Code has: our own keys in it (`sandbox`, `verify`, `thinking`…) are named and dropped, since Claude Code would
 * not read them either and a file written for it must not decide more here than there.
 */
/** Claude Code's tool names and the pi tool each one is. */
const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  Read: "read",
  Edit: "edit",
  MultiEdit: "edit",
  Write: "write",
  Bash: "bash",
  Grep: "grep",
  Glob: "find",
  LS: "ls",
});

/** pi's own built-in tool names, accepted as they are in a Claude file. */
const PI_TOOL_NAMES: readonly string[] = Object.freeze(["read", "bash", "edit", "write", "grep", "find", "ls"]);

/** Claude Code's model words; each runs the first of the person's models whose id contains it. */
const CLAUDE_MODEL_WORDS = ["sonnet", "opus", "haiku"] as const;
export type ClaudeModelWord = (typeof CLAUDE_MODEL_WORDS)[number];

function isClaudeModelWord(value: unknown): value is ClaudeModelWord {
  return typeof value === "string" && (CLAUDE_MODEL_WORDS as readonly string[]).includes(value);
}

/*
 * Claude Code reads frontmatter more leniently than YAML does: a file it wrote itself often has a one-line
 * `description: Use this agent when… Examples: <example>Context: …` that YAML refuses ("nested mappings"). When a
 * Claude file's frontmatter is not YAML, each top-level `key: value` line whose plain value holds `: ` (or ends in
 * `:`) is read again with that value quoted; a file that still fails is skipped with YAML's first complaint.
 */
/** The frontmatter with such values quoted, or undefined when no line needed it. */
export function quotePlainValues(yaml: string): string | undefined {
  let changed = false;
  const lines = yaml.split("\n").map((line) => {
    // No backtracking pattern: a hostile frontmatter is 16 KiB at most, and a line of it is read in one pass.
    const match = /^([A-Za-z_][A-Za-z0-9_-]*):[ \t](.*)$/.exec(line);
    const value = match?.[2]?.trim();
    if (match === null || value === undefined || value === "") return line;
    // Already quoted, a flow collection, a block scalar, an anchor, alias, tag or comment: YAML's own, left alone.
    if (/^["'[{|>&*!#]/.test(value) || !/:\s|:$/.test(value)) return line;
    changed = true;
    return `${match[1]}: ${JSON.stringify(value)}`;
  });
  return changed ? lines.join("\n") : undefined;
}

/** The keys of a Claude file that have a meaning here; any other key is named as not mapped. */
const MAPPED_KEYS: readonly string[] = Object.freeze([
  "name",
  "description",
  "tools",
  "disallowedTools",
  "model",
  "permissionMode",
  "maxTurns",
  "isolation",
  "skills",
  "mcpServers",
]);

/**
 * Keys that only change how Claude Code draws the agent: nothing is lost without them, and naming them would warn
 * at every start for nearly every Claude agent (its `/agents` wizard writes `color`).
 */
const COSMETIC_KEYS: readonly string[] = Object.freeze(["color"]);

/** A list as Claude Code writes one: a comma-separated string or a YAML list; undefined when it is neither. */
function listOf(raw: unknown): string[] | undefined {
  if (raw === null) return [];
  if (typeof raw === "string")
    return raw
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  if (Array.isArray(raw) && raw.every((item) => typeof item === "string"))
    return (raw as string[]).map((item) => item.trim()).filter((item) => item !== "");
  return undefined;
}

export interface MappedTools {
  /** The pi tools the names stand for, in order, once each. */
  tools: string[];
  /** `mcp__…` names and patterns, kept as they are. */
  mcp: string[];
  /** Names with no pi tool (`WebFetch`, `Task`, `Bash(git:*)`…), dropped. */
  notMapped: string[];
}

/** Claude Code's tool names as pi's: `Read`→read, `Glob`→find, `mcp__…` apart, anything else not mapped. */
export function mapClaudeTools(names: readonly string[]): MappedTools {
  const tools: string[] = [];
  const mcp: string[] = [];
  const notMapped: string[] = [];
  for (const name of names) {
    const piName = Object.hasOwn(CLAUDE_TOOL_NAMES, name)
      ? CLAUDE_TOOL_NAMES[name]
      : PI_TOOL_NAMES.includes(name)
        ? name
        : undefined;
    if (piName !== undefined) {
      if (!tools.includes(piName)) tools.push(piName);
    } else if (name.startsWith(MCP_PREFIX)) {
      if (!mcp.includes(name)) mcp.push(name);
    } else if (!notMapped.includes(name)) notMapped.push(name);
  }
  return { tools, mcp, notMapped };
}

/** What a Claude file's model asks for: a `provider/id` kept, a model word matched later, else the main agent's. */
type ClaudeModel = { kind: "inherit" } | { kind: "model"; model: string } | { kind: "word"; word: ClaudeModelWord };

function mapClaudeModel(raw: string): ClaudeModel | undefined {
  const value = raw.trim();
  if (value === "" || value === "inherit") return { kind: "inherit" };
  const word = value.toLowerCase();
  if (isClaudeModelWord(word)) return { kind: "word", word };
  // `provider/id`: what pi's --model takes and Claude Code never writes; a bare id could name any provider's.
  if (/^[^/\s]+\/\S+$/.test(value)) return { kind: "model", model: value };
  return undefined;
}

/** The mapping of one Claude file's frontmatter: our frontmatter's data, and what it could not carry over. */
export interface MappedClaudeFrontmatter {
  data: Record<string, unknown>;
  /** Claude's `tools` was a list of which no name maps: the agent gets no tools, not pi's defaults. */
  noTools: boolean;
  /** `sonnet`, `opus` or `haiku`: matched against the person's models when the agent is dispatched. */
  modelWord?: ClaudeModelWord;
  /** One phrase per thing not mapped (`tools WebFetch, Task`, `permissionMode acceptEdits`, `color`). */
  notMapped: string[];
}

function quoted(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

/** The server names of Claude's `mcpServers` (strings); inline server definitions cannot be mapped. */
function mapMcpServers(raw: unknown): { servers: string[]; notMapped: string[] } {
  if (raw === undefined || raw === null) return { servers: [], notMapped: [] };
  const items: unknown[] = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [raw];
  const servers: string[] = [];
  const notMapped: string[] = [];
  for (const item of items) {
    if (typeof item === "string" && item.trim() !== "") servers.push(item.trim());
    else if (item !== null && typeof item === "object")
      notMapped.push(...Object.keys(item as Record<string, unknown>).map((name) => `${name} (an inline server)`));
  }
  return { servers, notMapped };
}

/**
 * Claude Code names a skill (`pdf`) where we take a path: a bare name is the `skills/<name>` folder beside the
 * agents folder the file is in (`.claude/skills/pdf`, `~/.claude/skills/pdf`); a path stays as written.
 */
function skillPaths(raw: unknown, filePath: string): unknown {
  const names = listOf(raw);
  if (names === undefined) return raw; // our parser names the bad value
  const skillsDir = join(dirname(dirname(filePath)), "skills");
  return names.map((name) =>
    name.includes("/") || name.startsWith("~") || name === "." || name === ".." ? name : join(skillsDir, name),
  );
}

/** @param filePath the file's path, which Claude's skill names are found beside. */
export function mapClaudeFrontmatter(claude: Record<string, unknown>, filePath: string): MappedClaudeFrontmatter {
  const data: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const notMapped: string[] = [];
  let noTools = false;
  let modelWord: ClaudeModelWord | undefined;
  for (const key of ["name", "description", "maxTurns", "isolation"])
    if (Object.hasOwn(claude, key)) data[key] = claude[key];
  if (Object.hasOwn(claude, "skills")) data["skills"] = skillPaths(claude["skills"], filePath);

  const mcp: string[] = [];
  if (Object.hasOwn(claude, "tools")) {
    const names = listOf(claude["tools"]);
    if (names === undefined)
      data["tools"] = claude["tools"]; // our parser names the bad value
    else {
      const mapped = mapClaudeTools(names);
      if (mapped.tools.length > 0) data["tools"] = mapped.tools;
      // Claude gave the agent only tools pi does not have: it gets none here, never all of pi's.
      else if (names.length > 0) noTools = true;
      mcp.push(...mapped.mcp);
      if (mapped.notMapped.length > 0) notMapped.push(`tools ${mapped.notMapped.join(", ")}`);
    }
  }
  if (Object.hasOwn(claude, "disallowedTools")) {
    const names = listOf(claude["disallowedTools"]);
    if (names === undefined) data["disallowedTools"] = claude["disallowedTools"];
    else {
      const mapped = mapClaudeTools(names);
      data["disallowedTools"] = [...mapped.tools, ...mapped.mcp];
      if (mapped.notMapped.length > 0) notMapped.push(`disallowedTools ${mapped.notMapped.join(", ")}`);
    }
  }
  const servers = mapMcpServers(claude["mcpServers"]);
  mcp.push(...servers.servers);
  if (servers.notMapped.length > 0) notMapped.push(`mcpServers ${servers.notMapped.join(", ")}`);
  if (mcp.length > 0) data["mcp"] = [...new Set(mcp)];

  if (Object.hasOwn(claude, "model") && claude["model"] !== null) {
    const raw = claude["model"];
    const model = typeof raw === "string" ? mapClaudeModel(raw) : undefined;
    if (model?.kind === "model") data["model"] = model.model;
    else if (model?.kind === "word") modelWord = model.word;
    else if (model === undefined) notMapped.push(`model ${quoted(raw)} (the main agent's model is used)`);
  }
  if (Object.hasOwn(claude, "permissionMode") && claude["permissionMode"] !== null) {
    const mode = claude["permissionMode"];
    if (mode === "plan") data["sandbox"] = "read-only";
    else notMapped.push(`permissionMode ${quoted(mode)}`);
  }
  const others = Object.keys(claude).filter((key) => !MAPPED_KEYS.includes(key) && !COSMETIC_KEYS.includes(key));
  if (others.length > 0) notMapped.push(others.join(", "));
  return { data, noTools, ...(modelWord ? { modelWord } : {}), notMapped };
}

/** The warning naming what of a Claude file was not mapped (one per file). */
export function notMappedText(notMapped: readonly string[]): string {
  return `not mapped from Claude Code: ${notMapped.join("; ")}; the agent loads without ${notMapped.length === 1 ? "it" : "them"}`;
}

/*
 * Claude's model words, matched when the agent is dispatched: the first model of the `$models` list in force whose
 * id (the part after `provider/`) contains the word, else the first such model named in the person's
 * subagent-isolation.json entries; none: the agent inherits the main agent's model, and /subagent-agents says why.
 */
export function modelForWord(word: ClaudeModelWord, candidates: readonly string[]): string | undefined {
  return candidates.find((model) => {
    const id = model.includes("/") ? model.slice(model.indexOf("/") + 1) : model;
    return id.toLowerCase().includes(word);
  });
}

/** `inherited: Claude's "sonnet" matched none of your models`: the note for an unmatched word. */
export function unmatchedWordNote(word: ClaudeModelWord): string {
  return `Claude Code's model "${word}" matched no model of your $models list or subagent-isolation.json entries; the main agent's model is used`;
}

/*
 * `"$claudeAgents": false` in the person's user-level subagent-isolation.json turns both Claude tiers off; a project
 * file cannot set it (a repository must not decide which of the person's files count).
 */
const CLAUDE_AGENTS_KEY = "$claudeAgents";

export interface ClaudeAgentsSetting {
  enabled: boolean;
  warnings: string[];
}

export function readClaudeAgentsSetting(layers: {
  user: { settings?: Record<string, unknown>; filePath?: string };
  project: { settings?: Record<string, unknown>; filePath?: string };
}): ClaudeAgentsSetting {
  const warnings: string[] = [];
  let enabled = true;
  const user = layers.user.settings ?? {};
  if (Object.hasOwn(user, CLAUDE_AGENTS_KEY)) {
    const value = user[CLAUDE_AGENTS_KEY];
    if (typeof value === "boolean") enabled = value;
    else
      warnings.push(
        `pi-subagent-dispatch: ${layers.user.filePath ?? "user subagent-isolation.json"}: "${CLAUDE_AGENTS_KEY}" must be true or false; using true`,
      );
  }
  if (Object.hasOwn(layers.project.settings ?? {}, CLAUDE_AGENTS_KEY))
    warnings.push(
      `pi-subagent-dispatch: ${layers.project.filePath ?? "project subagent-isolation.json"}: "${CLAUDE_AGENTS_KEY}" can only be set in your user-level subagent-isolation.json; ignored`,
    );
  return { enabled, warnings };
}

/** An agent's tier as the commands name it: `claude (user)`, `claude (project)` for a Claude file, else its source. */
export function claudeTierText(source: string): string {
  return `claude (${source})`;
}
