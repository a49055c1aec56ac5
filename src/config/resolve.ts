/**
 * What a dispatch takes from the layers: model and thinking with their sources, the budget, the sandbox level, the dispatch limits, `$askPerson` and a call's own model.
 */
import type { AgentDefinition, AgentSource } from "../agents/parse.ts";
import { modelForWord, type ClaudeModelWord } from "../agents/claude-agent.ts";
import type { ConfigLayer, ModelOverride, ResolvedModelConfig, ValueSource, AvailableModels } from "./load.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";
import { BUDGET_ENV, BUDGET_KEYS, formatCost, type BudgetKey, type BudgetLimits } from "../budget/limits.ts";
import { loopGuardSetting, type LoopGuardSetting } from "../budget/loop-setting.ts";
import {
  isSandboxLevel,
  SANDBOX_LEVELS,
  stricterLevel,
  type SandboxLevel,
  type ResolvedSandbox,
  type SandboxSource,
} from "../sandbox/levels.ts";
import { mcpEntryPattern, patternCovers } from "../shared/tool-patterns.ts";
import { DEFAULT_MAX_DEPTH, MAX_DEPTH_CAP, MAX_DEPTH_ENV, parseMaxDepth } from "../shared/nesting.ts";

/*
 * Which model and thinking level an agent runs with, and where each came from. Pure.
 *
 * Layers shadow by whole key: the highest layer whose entry for the agent sets a model or a thinking level
 * (process > project > user) is the only one consulted; a field that entry leaves unset falls through to the
 * agent's frontmatter, never to a lower layer's entry. An entry holding only budgets takes no part: budgets
 * shadow per field (src/config/resolve.ts), so adding one never hides a lower layer's model. The
 * model finally falls back to the main agent's current model (`inherited`); the thinking level is never
 * inherited. A tool call's own `model` or `thinking` sits above every layer, for that task only.
 */
export interface ConfigLayers {
  user?: ConfigLayer;
  project?: ConfigLayer;
  process?: ConfigLayer;
}

export type AgentModelFields = Pick<AgentDefinition, "name" | "model" | "thinking" | "claudeModel">;

/** Highest precedence first. */
const LAYER_ORDER = ["process", "project", "user"] as const;

export type EntryLayerName = (typeof LAYER_ORDER)[number];

/** The agent's entry in each layer that has one, highest precedence first. */
function entriesOf(agentName: string, layers: ConfigLayers): { entry: ModelOverride; source: EntryLayerName }[] {
  const found: { entry: ModelOverride; source: EntryLayerName }[] = [];
  for (const source of LAYER_ORDER) {
    const entries = layers[source]?.entries;
    const entry = entries && Object.hasOwn(entries, agentName) ? entries[agentName] : undefined;
    if (entry) found.push({ entry, source });
  }
  return found;
}

/**
 * The entry that governs `agentName`'s model and thinking and the layer it sits in: the highest one that sets
 * either of them, if any does.
 */
export function governingEntry(
  agentName: string,
  layers: ConfigLayers,
): { entry: ModelOverride; source: EntryLayerName } | undefined {
  return entriesOf(agentName, layers).find(({ entry }) => entry.model !== undefined || entry.thinking !== undefined);
}

/** The merged view `{...user, ...project, ...process}` every reader sees. */
export function mergeOverrideEntries(layers: ConfigLayers): Record<string, ModelOverride> {
  return Object.assign(
    Object.create(null) as Record<string, ModelOverride>,
    layers.user?.entries,
    layers.project?.entries,
    layers.process?.entries,
  );
}

/** What a tool call asked for its own task (validated before it gets here). */
export interface CallModelChoice {
  model?: string;
  thinking?: ThinkingLevel;
}

/**
 * The effective model and thinking level of `agent`, each with its source. `inheritedModel` is the main
 * agent's current model as `provider/id`; leave it out where inheriting makes no sense.
 */
export function resolveModelConfig(
  agent: AgentModelFields,
  layers: ConfigLayers,
  inheritedModel?: string,
  call: CallModelChoice = {},
): ResolvedModelConfig {
  const governing = governingEntry(agent.name, layers);
  const resolved: ResolvedModelConfig = { model: {}, thinking: {} };

  // A Claude Code file's `model: sonnet` is its frontmatter model once matched to one of the person's models.
  const wordModel = agent.claudeModel !== undefined ? claudeWordModel(agent.claudeModel, layers) : undefined;
  let model: { value: string; source: ValueSource } | undefined;
  if (call.model !== undefined) model = { value: call.model, source: "call" };
  else if (governing?.entry.model !== undefined) model = { value: governing.entry.model, source: governing.source };
  else if (agent.model !== undefined) model = { value: agent.model, source: "frontmatter" };
  else if (wordModel !== undefined) model = { value: wordModel, source: "frontmatter" };
  else if (inheritedModel !== undefined && inheritedModel !== "")
    model = { value: inheritedModel, source: "inherited" };
  if (model) resolved.model = model;

  if (call.thinking !== undefined) resolved.thinking = { value: call.thinking, source: "call" };
  else if (governing?.entry.thinking !== undefined)
    resolved.thinking = { value: governing.entry.thinking, source: governing.source };
  else if (agent.thinking !== undefined) resolved.thinking = { value: agent.thinking, source: "frontmatter" };

  return resolved;
}

/**
 * A Claude Code file's `model: sonnet` (`opus`, `haiku`) as one of the person's models: the first of the `$models`
 * list in force (project over user, as everywhere) whose id contains the word, else the first such model the
 * person's or the project's entries name; undefined when none does (the agent inherits).
 */
export function claudeWordModel(word: ClaudeModelWord, layers: ConfigLayers): string | undefined {
  const listed = layers.project?.models ?? layers.user?.models ?? [];
  const named = [layers.process, layers.user, layers.project].flatMap((layer) =>
    Object.values(layer?.entries ?? {}).flatMap((entry) => (entry.model !== undefined ? [entry.model] : [])),
  );
  return modelForWord(word, listed) ?? modelForWord(word, named);
}

/**
 * What the config files and the frontmatter say, ignoring the process layer and inheritance: the values the
 * agent would fall back to if its in-memory override went away (the `[saved: ...]` annotation).
 */
export function resolveSavedModelConfig(agent: AgentModelFields, layers: ConfigLayers): ResolvedModelConfig {
  const withoutProcess: ConfigLayers = {};
  if (layers.user) withoutProcess.user = layers.user;
  if (layers.project) withoutProcess.project = layers.project;
  return resolveModelConfig(agent, withoutProcess);
}

/** The main agent's current model as `provider/id` (what a subagent inherits), if pi has one. */
export function currentModelRef(model: { provider: string; id: string } | undefined): string | undefined {
  return model ? `${model.provider}/${model.id}` : undefined;
}

/*
 * The budget a task runs with, each limit with its source. Pure.
 *
 * Configured limits shadow per field: for each limit the person's value is the highest of their layers whose entry
 * sets it (process > user), then a built-in or user agent's frontmatter, then the session-wide environment default.
 * A project (its entry for the agent, a project agent's frontmatter) can only lower that value, never raise it: a
 * repository must not lift the person's spending limit. Unlike model and
 * thinking (src/config/resolve.ts), an entry that sets one limit hides nothing else of a lower layer. A call's own limit can only lower a configured one: a lower value wins, a
 * higher one is capped at the configured limit and a note says so; with nothing configured the call's value is
 * used as given.
 */
type BudgetSource = Exclude<ValueSource, "inherited"> | "env" | "call";

export interface ResolvedBudget {
  limits: BudgetLimits;
  sources: Partial<Record<BudgetKey, BudgetSource>>;
  /** One sentence per call value that was above the configured limit and was capped. */
  capped: string[];
}

function show(key: BudgetKey, value: number): string {
  return key === "maxCost" ? formatCost(value) : String(value);
}

/** The limits that layer this way: the budgets, and the loop guard's `loopGuard` (src/budget/loop-setting.ts). */
type LayeredKey = BudgetKey | "loopGuard";

/** One layered limit of an agent (see the comment above), or undefined when nothing sets it. */
function resolveLayeredLimit(
  key: LayeredKey,
  agent: { source?: AgentSource } & Partial<Record<LayeredKey, number>>,
  entries: ReturnType<typeof entriesOf>,
  fallback: number | undefined,
): { limit: number; source: BudgetSource } | undefined {
  const projectAgent = agent.source === "project";
  // The person's limit: their entries (this process's, then the user file's), a built-in or user agent's own
  // frontmatter, then the session-wide default.
  let limit: number | undefined;
  let source: BudgetSource | undefined;
  const personal = entries.find(({ entry, source: layer }) => layer !== "project" && entry[key] !== undefined);
  if (personal) [limit, source] = [personal.entry[key], personal.source];
  else if (!projectAgent && agent[key] !== undefined) [limit, source] = [agent[key], "frontmatter"];
  else if (fallback !== undefined) [limit, source] = [fallback, "env"];
  // The project's (its entry, a project agent's frontmatter) only ever lowers it.
  const projectEntry = entries.find(({ source: layer }) => layer === "project")?.entry[key];
  const projectValues: [number | undefined, BudgetSource][] = [
    [projectAgent ? agent[key] : undefined, "frontmatter"],
    [projectEntry, "project"],
  ];
  for (const [value, from] of projectValues) {
    if (value !== undefined && (limit === undefined || value < limit)) [limit, source] = [value, from];
  }
  return limit !== undefined && source !== undefined ? { limit, source } : undefined;
}

/**
 * Whether the deliverable check runs for the agent's tasks: the highest config entry that says (this process's,
 * the project's, the user's), else the agent's frontmatter, else on. Turning it off weakens nobody's protection,
 * so any layer may.
 */
export function resolveDeliverableCheck(
  agent: { name: string; deliverableCheck?: boolean },
  layers: ConfigLayers,
): boolean {
  const entry = entriesOf(agent.name, layers).find(({ entry }) => entry.deliverableCheck !== undefined);
  return entry?.entry.deliverableCheck ?? agent.deliverableCheck ?? true;
}

/** The configured limits (config entry, frontmatter, env) of an agent, ignoring any call. */
export function resolveConfiguredBudget(
  agent: { name: string; source?: AgentSource } & BudgetLimits,
  layers: ConfigLayers,
  envLimits: BudgetLimits,
): ResolvedBudget {
  const entries = entriesOf(agent.name, layers);
  const resolved: ResolvedBudget = { limits: {}, sources: {}, capped: [] };
  for (const key of BUDGET_KEYS) {
    const layered = resolveLayeredLimit(key, agent, entries, envLimits[key]);
    if (layered) {
      resolved.limits[key] = layered.limit;
      resolved.sources[key] = layered.source;
    }
  }
  return resolved;
}

/**
 * The loop guard an agent's tasks run with: its `loopGuard`, layered like a budget (a project can make it stricter,
 * never turn it off), falling back to the session-wide default (PI_SUBAGENT_LOOP_GUARD, else 8 calls).
 */
export function resolveLoopGuard(
  agent: { name: string; source?: AgentSource; loopGuard?: number },
  layers: ConfigLayers,
  sessionDefault: number,
): LoopGuardSetting {
  const layered = resolveLayeredLimit("loopGuard", agent, entriesOf(agent.name, layers), sessionDefault);
  return loopGuardSetting(layered?.limit ?? sessionDefault);
}

/** Applies a call's limits to the configured ones (see the file comment). */
export function applyCallBudget(configured: ResolvedBudget, call: BudgetLimits): ResolvedBudget {
  const resolved: ResolvedBudget = {
    limits: { ...configured.limits },
    sources: { ...configured.sources },
    capped: [...configured.capped],
  };
  for (const key of BUDGET_KEYS) {
    const asked = call[key];
    if (asked === undefined) continue;
    const limit = configured.limits[key];
    if (limit === undefined || asked <= limit) {
      resolved.limits[key] = asked;
      resolved.sources[key] = "call";
    } else {
      const where = configured.sources[key] === "env" ? BUDGET_ENV[key] : (configured.sources[key] ?? "config");
      resolved.capped.push(
        `${key} ${show(key, asked)} was capped at the configured ${show(key, limit)} (${where}); a call can only lower a budget`,
      );
    }
  }
  return resolved;
}

/*
 * The sandbox settings of the subagent-isolation.json files: `"$sandbox"`, the default level of every agent, and
 * `"$sandboxHide"`, more paths to hide. The user file sets both; a project's `"$sandbox"` only makes agents
 * stricter (`stricterLevel` in src/sandbox/levels.ts), and its `"$sandboxHide"` is ignored with a warning: a
 * repository may add restrictions, never decide what of the person's is hidden or shown. Pure.
 */
const SANDBOX_KEY = "$sandbox";
const SANDBOX_HIDE_KEY = "$sandboxHide";

export interface SandboxSettings {
  userDefault?: SandboxLevel;
  projectDefault?: SandboxLevel;
  /** Paths to hide besides the defaults, as written (`~/x` or absolute). */
  hide: string[];
  warnings: string[];
}

type Layer = Pick<ConfigLayer, "settings" | "filePath">;

function where(layer: Layer, name: string): string {
  return `pi-subagent-dispatch: ${layer.filePath ?? `${name} subagent-isolation.json`}`;
}

function readLevel(layer: Layer, name: string, warnings: string[]): SandboxLevel | undefined {
  const settings = layer.settings ?? {};
  if (!Object.hasOwn(settings, SANDBOX_KEY)) return undefined;
  const value = settings[SANDBOX_KEY];
  if (isSandboxLevel(value)) return value;
  if (value === null) return undefined;
  // A mistyped level asked for a sandbox: the strictest one, never none.
  warnings.push(
    `${where(layer, name)}: "${SANDBOX_KEY}" must be one of ${SANDBOX_LEVELS.join(", ")} (got ${JSON.stringify(value)?.slice(0, 80)}); every agent it covers runs read-only until that is fixed`,
  );
  return "read-only";
}

export function readSandboxSettings(layers: { user: Layer; project: Layer }): SandboxSettings {
  const warnings: string[] = [];
  const result: SandboxSettings = { hide: [], warnings };
  const userDefault = readLevel(layers.user, "user", warnings);
  if (userDefault) result.userDefault = userDefault;
  const projectDefault = readLevel(layers.project, "project", warnings);
  if (projectDefault) result.projectDefault = projectDefault;
  const user = layers.user.settings ?? {};
  if (Object.hasOwn(user, SANDBOX_HIDE_KEY)) {
    const value = user[SANDBOX_HIDE_KEY];
    if (Array.isArray(value) && value.every((item) => typeof item === "string"))
      result.hide = (value as string[]).filter((item) => item.trim() !== "");
    else
      warnings.push(
        `${where(layers.user, "user")}: "${SANDBOX_HIDE_KEY}" must be a list of paths ("~/..." or absolute); ignored`,
      );
  }
  if (Object.hasOwn(layers.project.settings ?? {}, SANDBOX_HIDE_KEY)) {
    warnings.push(
      `${where(layers.project, "project")}: "${SANDBOX_HIDE_KEY}" can only be set in your user-level subagent-isolation.json; ignored`,
    );
  }
  return result;
}

export type { ResolvedSandbox, SandboxSource } from "../sandbox/levels.ts";

/*
 * Which sandbox level a subagent runs with, and who decided it. Pure.
 *
 * The person's own settings set the level: their user-level entry for the agent, else the agent's frontmatter
 * (a built-in or user agent only), else their `"$sandbox"` default, else `off`. Everything else can only make it
 * stricter (off → workspace-write → read-only), never looser: a project agent's frontmatter, the project's entry
 * for the agent, the project's `"$sandbox"`, and the call's `sandbox` parameter. So a repository or a model
 * cannot lift a sandbox the person asked for. A project agent named like a built-in or user agent starts from that
 * agent's frontmatter, as if it were that agent: a planted `.pi/agents/reviewer.md` cannot shed the sandbox the
 * person's `reviewer` has.
 */
export interface SandboxInputs {
  agent: Pick<AgentDefinition, "sandbox" | "source" | "shadows">;
  /** The user-level entry's `sandbox` for this agent. */
  userEntry?: SandboxLevel;
  /** `"$sandbox"` in the user-level file. */
  userDefault?: SandboxLevel;
  /** The project entry's `sandbox` for this agent (tightens only). */
  projectEntry?: SandboxLevel;
  /** `"$sandbox"` in the project file (tightens only). */
  projectDefault?: SandboxLevel;
  /** The call's `sandbox` parameter (tightens only). */
  call?: SandboxLevel;
}

export function resolveSandbox(inputs: SandboxInputs): ResolvedSandbox {
  const ownFrontmatter = inputs.agent.source === "project" ? inputs.agent.shadows?.sandbox : inputs.agent.sandbox;
  let resolved: ResolvedSandbox;
  if (inputs.userEntry !== undefined) resolved = { level: inputs.userEntry, source: "user" };
  else if (ownFrontmatter !== undefined) resolved = { level: ownFrontmatter, source: "frontmatter" };
  else if (inputs.userDefault !== undefined) resolved = { level: inputs.userDefault, source: "$sandbox" };
  else resolved = { level: "off", source: "default" };
  const tighteners: [SandboxLevel | undefined, SandboxSource][] = [
    [inputs.agent.source === "project" ? inputs.agent.sandbox : undefined, "frontmatter"],
    [inputs.projectDefault, "project $sandbox"],
    [inputs.projectEntry, "project"],
    [inputs.call, "call"],
  ];
  for (const [level, source] of tighteners) {
    if (level === undefined) continue;
    // Only a strictly tighter level changes the source: an equal one adds nothing.
    if (stricterLevel(level, resolved.level) !== resolved.level) resolved = { level, source };
  }
  return resolved;
}

/**
 * A resumed task keeps the stricter of the sandbox it ran in and the one this call resolves: resuming a read-only
 * task as another agent (or after a setting changed) never lifts it. `recorded` absent: it ran without one.
 */
export function keepRecordedSandbox(resolved: ResolvedSandbox, recorded: SandboxLevel | undefined): ResolvedSandbox {
  if (recorded === undefined || stricterLevel(recorded, resolved.level) === resolved.level) return resolved;
  return { level: recorded, source: "resumed task" };
}

/*
 * The two dispatch limits that live beside the model settings: how deep subagents may nest (`$maxDepth`) and how
 * large a forked conversation may be (`$forkMaxChars`). Each is read from the environment first, then the
 * project file, then the user file, then the default. Pure: the caller passes the environment and the layers.
 */
const MAX_DEPTH_KEY = "$maxDepth";
const FORK_MAX_CHARS_KEY = "$forkMaxChars";
const FORK_MAX_CHARS_ENV = "PI_SUBAGENT_FORK_MAX_CHARS";
/** About 100k tokens of conversation: room for a long session, well below where a fork stops being useful. */
export const DEFAULT_FORK_MAX_CHARS = 400_000;

interface DispatchLimit {
  value: number;
  /** Where it came from: `env`, `project`, `user` or `default`. */
  source: "env" | "project" | "user" | "default";
}

export interface DispatchLimits {
  maxDepth: DispatchLimit;
  forkMaxChars: DispatchLimit;
  /** Values that were set but invalid, and so ignored (shown once, like other config warnings). */
  warnings: string[];
}

export type FileLayers = {
  user: Pick<ConfigLayer, "settings" | "filePath">;
  project: Pick<ConfigLayer, "settings" | "filePath">;
};

function parseForkMaxChars(raw: unknown): number | undefined {
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : typeof raw === "number" ? raw : Number.NaN;
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

function resolveLimit(
  envName: string,
  key: string,
  parse: (raw: unknown) => number | undefined,
  fallback: number,
  expected: string,
  env: NodeJS.ProcessEnv,
  layers: FileLayers,
  warnings: string[],
): DispatchLimit {
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    const value = parse(fromEnv);
    if (value !== undefined) return { value, source: "env" };
    warnings.push(`pi-subagent-dispatch: ${envName}=${fromEnv.trim()} is not ${expected}; ignored`);
  }
  for (const name of ["project", "user"] as const) {
    const layer = layers[name];
    const settings = layer.settings;
    if (!settings || !Object.hasOwn(settings, key)) continue;
    const value = parse(settings[key]);
    if (value !== undefined) return { value, source: name };
    warnings.push(
      `pi-subagent-dispatch: ${layer.filePath ?? `${name} subagent-isolation.json`}: "${key}" is not ${expected}; ignored`,
    );
  }
  return { value: fallback, source: "default" };
}

export function resolveDispatchLimits(env: NodeJS.ProcessEnv, layers: FileLayers): DispatchLimits {
  const warnings: string[] = [];
  const maxDepth = resolveLimit(
    MAX_DEPTH_ENV,
    MAX_DEPTH_KEY,
    parseMaxDepth,
    DEFAULT_MAX_DEPTH,
    `a whole number from 1 to ${MAX_DEPTH_CAP}`,
    env,
    layers,
    warnings,
  );
  const forkMaxChars = resolveLimit(
    FORK_MAX_CHARS_ENV,
    FORK_MAX_CHARS_KEY,
    parseForkMaxChars,
    DEFAULT_FORK_MAX_CHARS,
    "a whole number of characters (1 or more)",
    env,
    layers,
    warnings,
  );
  return { maxDepth, forkMaxChars, warnings };
}

/*
 * `$askPerson` in the user's subagent-isolation.json: whether a background subagent's questions are shown to the
 * person (default true). Only the user file counts: it is the person's own choice whether to be asked, not a
 * project's. Pure: the caller passes the user layer.
 */
const ASK_PERSON_KEY = "$askPerson";

export interface AskPersonSetting {
  askPerson: boolean;
  /** Set when the value was not true or false (it is then ignored). */
  warning?: string;
}

export function resolveAskPerson(user: Pick<ConfigLayer, "settings" | "filePath">): AskPersonSetting {
  const settings = user.settings;
  if (!settings || !Object.hasOwn(settings, ASK_PERSON_KEY)) return { askPerson: true };
  const value = settings[ASK_PERSON_KEY];
  if (typeof value === "boolean") return { askPerson: value };
  return {
    askPerson: true,
    warning: `pi-subagent-dispatch: ${user.filePath ?? "user subagent-isolation.json"}: "${ASK_PERSON_KEY}" must be true or false; ignored`,
  };
}

/*
 * Whether a tool call's own `model` may run: it must name a model pi knows (`provider/id`, looked up in pi's
 * model registry by the caller) and, where a non-empty `$models` list is in force, be one of its entries. Pure.
 */
/** `provider/id` split at the first `/` (an id may itself hold slashes, as OpenRouter's do). */
export function splitModelRef(ref: string): { provider: string; id: string } | undefined {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), id: ref.slice(slash + 1) };
}

/** The refusal of a call's model, or undefined when it may run. `known` asks pi's model registry. */
export function callModelProblem(
  model: string,
  available: AvailableModels,
  known: (provider: string, id: string) => boolean,
): string | undefined {
  // An empty list restricts nothing, as in /subagent-config, which then asks for any model.
  if (available.models.length > 0 && !available.models.includes(model)) {
    return `Model "${model}" is not in the $models list of the ${available.source} subagent-isolation.json; allowed: ${available.models.join(", ")}. Omit model to use the agent's own.`;
  }
  const ref = splitModelRef(model);
  if (!ref || !known(ref.provider, ref.id)) {
    return `Unknown model "${model}": give provider/id of a model pi knows (pi --list-models), or omit model to use the agent's own.`;
  }
  return undefined;
}

/*
 * The agent's tool limits from the layers. `mcp`: the user entry replaces the frontmatter's list; a project entry
 * only narrows it (an entry stays when one of the project's covers it), so a repository cannot hand a child a
 * server the person did not give the agent. `disallowedTools`: the frontmatter's and every layer's, added up
 * (taking a tool away is always allowed). Pure.
 */
export interface AgentToolLimits {
  mcp?: string[];
  disallowedTools?: string[];
}

export function resolveToolLimits(
  agent: Pick<AgentDefinition, "name" | "mcp" | "disallowedTools">,
  layers: ConfigLayers,
): AgentToolLimits {
  const entry = (layer: ConfigLayer | undefined) =>
    layer?.entries && Object.hasOwn(layer.entries, agent.name) ? layer.entries[agent.name] : undefined;
  const user = entry(layers.user);
  const project = entry(layers.project);
  let mcp = user?.mcp ?? agent.mcp;
  if (project?.mcp !== undefined) {
    const bounds = project.mcp.map(mcpEntryPattern);
    mcp = (mcp ?? []).filter((item) => bounds.some((outer) => patternCovers(outer, mcpEntryPattern(item))));
  }
  const disallowed = [
    ...new Set([
      ...(agent.disallowedTools ?? []),
      ...(user?.disallowedTools ?? []),
      ...(project?.disallowedTools ?? []),
    ]),
  ];
  return {
    ...(mcp !== undefined && mcp.length > 0 ? { mcp } : {}),
    ...(disallowed.length > 0 ? { disallowedTools: disallowed } : {}),
  };
}
