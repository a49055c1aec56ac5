/**
 * `/subagent-config`'s editor as a state machine over its ports, with its labels and notices.
 */
import type { AgentDefinition } from "../agents/parse.ts";
import type { ModelOverridePatch, AvailableModels, ResolvedModelConfig, ResolvedValue } from "../config/load.ts";
import {
  governingEntry,
  resolveModelConfig,
  resolveSavedModelConfig,
  resolveConfiguredBudget,
  resolveSandbox,
  readSandboxSettings,
  type ConfigLayers,
  type ResolvedBudget,
  type ResolvedSandbox,
} from "../config/resolve.ts";
import { oneLine } from "../shared/text.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../shared/thinking.ts";
import { readEnvBudget, BUDGET_KEYS, formatCost, budgetValue, type BudgetKey } from "../budget/limits.ts";
import { SANDBOX_LEVELS, type SandboxLevel } from "../sandbox/levels.ts";

/*
 * The contracts of /subagent-config: what the flow sees of the world (a snapshot of agents and config
 * layers), what it can ask of the person (dialogs) and what it can change (the store). The flow itself
 * (`SubagentConfigFlow`, below) only talks to these ports, so it runs the same under pi's TUI, under RPC and in
 * unit tests.
 */
/** Where a model & thinking edit goes: the process memory or one of the two config files. */
export type WriteTarget = "process" | "user" | "project";

/** Where `$models` edits go (the list is file-level only). */
export type FileTarget = "user" | "project";

/** Everything one step of the flow reads, taken at once (and again after every write). */
export interface ConfigSnapshot {
  /** Effective agents after shadowing, sorted by name. */
  agents: AgentDefinition[];
  layers: Required<ConfigLayers>;
  models: AvailableModels;
  /** The config file each file target writes to; project is absent when there is no project to write to. */
  configPaths: { user: string; project?: string };
  /** The agents folder a built-in agent is copied to, per tier (project absent: no project here). */
  agentDirs: { user: string; project?: string };
  /** The main agent's current model (`provider/id`), offered as the prefill when nothing sets a model. */
  inheritedModel?: string;
  /** The thinking level a child gets when nothing sets one: pi's default, `off` for a model without reasoning. */
  inheritedThinking?: string;
  /** The models pi can use now (`provider/id`, from its model registry), offered when a model is chosen. */
  registryModels?: string[];
  /** True when pi does not trust the project in this session: nothing of the project's is shown or offered. */
  projectUntrusted?: boolean;
}

/** How an external body edit ended. */
export type BodyEditOutcome =
  /** The editor exited 0 and this is the file's content. */
  | { kind: "edited"; text: string }
  /** Nothing came back (a dialog-based editor was cancelled). */
  | { kind: "cancelled" }
  /** The editor could not be started (not found, not executable, the temp file failed, ...). */
  | { kind: "launch-failed"; command: string; reason: string }
  /** The editor ran but exited with a non-zero status or was killed by a signal. */
  | { kind: "exit-code"; command: string; code: number | null; signal: string | null };

export type NoticeLevel = "info" | "warning" | "error";

/** What the flow may ask the person. Every method resolves undefined (or false) when they press Esc. */
export interface ConfigDialogs {
  select(title: string, options: readonly string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  /** A single-line input showing `value` ready to edit; undefined when cancelled. */
  input(title: string, value: string): Promise<string | undefined>;
  /** Edits an agent's body (its system prompt) outside the dialog flow. */
  editBody(agentName: string, body: string): Promise<BodyEditOutcome>;
  notify(message: string, level: NoticeLevel): void;
}

/** A frontmatter change, as updateAgentFile takes it (only the keys the flow edits). */
interface AgentFieldPatch {
  description?: string;
  tools?: string | null;
  skills?: string | null;
}

/** One change to an agent file: some frontmatter keys, or the whole body. */
export type AgentFileChange = { kind: "frontmatter"; patch: AgentFieldPatch } | { kind: "body"; body: string };

export interface WriteResult {
  changed: boolean;
  /** The file written (absent for the process layer). */
  filePath?: string;
}

/**
 * Everything the flow can change. Each method does its own validation first and throws a WriteBackError
 * (a message fit to show) with nothing changed when it refuses.
 */
export interface ConfigStore {
  load(): ConfigSnapshot;
  /** One patch with both fields (null clears a field) into the process memory or a config file. */
  writeModelConfig(target: WriteTarget, agentName: string, patch: ModelOverridePatch): Promise<WriteResult>;
  /** Edits a user or project agent's own file. */
  changeAgentFile(agent: AgentDefinition, change: AgentFileChange): Promise<WriteResult>;
  /**
   * Copies a built-in agent into the user or project agents folder with the change applied, in one write;
   * the copy then shadows the built-in. Refuses when the destination file already exists.
   */
  copyBuiltinAgent(agent: AgentDefinition, destination: FileTarget, change: AgentFileChange): Promise<WriteResult>;
  addModel(target: FileTarget, model: string): Promise<WriteResult>;
  removeModel(target: FileTarget, model: string): Promise<WriteResult>;
}

/*
 * Every menu of /subagent-config as data: the option labels with their annotations, each paired with the value
 * it stands for. Pure. The flow shows the labels and maps the chosen label back by its position in the list,
 * so an annotation (a current value, a source, `(current)`, `[saved: ...]`) never ends up in a written value.
 */
/** One option of a menu and what choosing it means. */
export interface Choice<T> {
  label: string;
  value: T;
}

const NOT_SET = "not set";
const CURRENT_MARK = "(current)";
const PROCESS_BADGE = "(process)";
/** Between an option's name and its current value. */
const ANNOTATION_SEPARATOR = " — ";

const MANAGE_MODELS_ENTRY = "Manage available model list ($models)";
const EDIT_MODEL_THINKING = "edit model & thinking";
const CLEAR_MODEL_THINKING = "clear model & thinking (reset to frontmatter)";
const PROCESS_TARGET_LABEL = "this process";
const ADD_MODEL_ENTRY = "add a model";
const REMOVE_MODEL_ENTRY = "remove a model";

const AGENT_FIELDS = ["description", "tools", "skills", "body", "model & thinking", "budget", "sandbox"] as const;
export type AgentField = (typeof AGENT_FIELDS)[number];

/** How long a current value may get inside an option before it is cut (the dialog wraps, but stays readable). */
const VALUE_PREVIEW_CHARS = 72;
const BODY_PREVIEW_CHARS = 72;

function withCurrentMark(label: string, isCurrent: boolean): string {
  return isCurrent ? `${label} ${CURRENT_MARK}` : label;
}

/**
 * What a child gets where nothing sets its model or thinking: the main agent's current model, and pi's default
 * thinking level for that model (`off` for a model without reasoning). Either may be unknown.
 */
export interface InheritedModelThinking {
  model?: string;
  thinking?: string;
}

const INHERITS = "inherits";

/** The model slot: `fake/x (project)` when something sets it (with `withSources`), else `inherits fake/y`. */
function modelSlot(resolved: ResolvedModelConfig, inherited: InheritedModelThinking, withSources: boolean): string {
  const { value, source } = resolved.model;
  if (value !== undefined) return withSources ? `${value} (${source ?? NOT_SET})` : value;
  return `${INHERITS} ${inherited.model ?? "the main agent's model"}`;
}

/** The thinking slot: `thinking high (frontmatter)` when something sets it, else `thinking off` (pi's default). */
function thinkingSlot(resolved: ResolvedModelConfig, inherited: InheritedModelThinking, withSources: boolean): string {
  const { value, source } = resolved.thinking;
  if (value !== undefined) return withSources ? `thinking ${value} (${source ?? NOT_SET})` : `thinking ${value}`;
  return `thinking ${inherited.thinking ?? "pi's default"}`;
}

/**
 * `<model> (<source>) · thinking <level> (<source>)`; a slot nothing sets says what the child gets instead:
 * `inherits fake/fake-model · thinking off`.
 */
export function formatModelThinking(resolved: ResolvedModelConfig, inherited: InheritedModelThinking = {}): string {
  return `${modelSlot(resolved, inherited, true)} · ${thinkingSlot(resolved, inherited, true)}`;
}

/** The `[saved: ...]` fragment: what the config files and frontmatter say, without the process layer. */
export function formatSavedFragment(saved: ResolvedModelConfig, inherited: InheritedModelThinking = {}): string {
  return `[saved: ${formatModelThinking(saved, inherited)}]`;
}

/** What the annotations of one agent are computed from; an unset slot shows what is inherited instead. */
interface AgentModelView {
  effective: ResolvedModelConfig;
  /** Present only when the agent has a process-level override: the values without it. */
  saved?: ResolvedModelConfig;
  /** The layer whose entry governs the agent (`(current)` in the write-target menu), if any. */
  governing?: WriteTarget;
  inherited: InheritedModelThinking;
}

function agentModelView(
  agent: AgentDefinition,
  layers: ConfigLayers,
  inherited: InheritedModelThinking = {},
): AgentModelView {
  const view: AgentModelView = { effective: resolveModelConfig(agent, layers), inherited };
  if (layers.process && Object.hasOwn(layers.process.entries, agent.name))
    view.saved = resolveSavedModelConfig(agent, layers);
  const governing = governingEntry(agent.name, layers);
  if (governing) view.governing = governing.source;
  return view;
}

function savedSuffix(view: AgentModelView): string {
  return view.saved ? ` ${formatSavedFragment(view.saved, view.inherited)}` : "";
}

/** `user`, `project`, `builtin`, or `claude user` / `claude project` for a Claude Code file. */
function sourceText(agent: Pick<AgentDefinition, "source" | "dialect">): string {
  return agent.dialect === "claude" ? `claude ${agent.source}` : agent.source;
}

/**
 * `<name> (<source>) — <model> · thinking <level>` (an unset slot: `inherits fake/fake-model · thinking off`),
 * plus ` (process) [saved: ...]` with a process override.
 */
export function agentPickerLine(
  agent: AgentDefinition,
  layers: ConfigLayers,
  inherited: InheritedModelThinking = {},
): string {
  const view = agentModelView(agent, layers, inherited);
  const values = `${modelSlot(view.effective, inherited, false)} · ${thinkingSlot(view.effective, inherited, false)}`;
  const badge = view.saved ? ` ${PROCESS_BADGE}${savedSuffix(view)}` : "";
  return `${agent.name} (${sourceText(agent)})${ANNOTATION_SEPARATOR}${values}${badge}`;
}

/** What a snapshot says is inherited. */
function inheritedOf(snapshot: Pick<ConfigSnapshot, "inheritedModel" | "inheritedThinking">): InheritedModelThinking {
  const inherited: InheritedModelThinking = {};
  if (snapshot.inheritedModel !== undefined) inherited.model = snapshot.inheritedModel;
  if (snapshot.inheritedThinking !== undefined) inherited.thinking = snapshot.inheritedThinking;
  return inherited;
}

export type PickerValue = { kind: "agent"; name: string } | { kind: "models" };

/** The agent picker: one line per agent (in discovery order), then the `$models` entry, always last. */
export function agentPickerChoices(
  snapshot: Pick<ConfigSnapshot, "agents" | "layers" | "inheritedModel" | "inheritedThinking">,
): Choice<PickerValue>[] {
  const choices: Choice<PickerValue>[] = snapshot.agents.map((agent) => ({
    label: agentPickerLine(agent, snapshot.layers, inheritedOf(snapshot)),
    value: { kind: "agent", name: agent.name },
  }));
  choices.push({ label: MANAGE_MODELS_ENTRY, value: { kind: "models" } });
  return choices;
}

function listValue(list: readonly string[] | undefined, emptyMeaning: string): string {
  if (list === undefined) return NOT_SET;
  if (list.length === 0) return emptyMeaning;
  return oneLine(list.join(", "), VALUE_PREVIEW_CHARS);
}

/** A one-line preview of the body: its first non-blank line and its size. */
export function bodySummary(body: string): string {
  const lines = body.split("\n");
  const first = lines.find((line) => line.trim() !== "") ?? "";
  if (first === "") return "(empty)";
  const count = lines.length === 1 ? "1 line" : `${lines.length} lines`;
  return `${oneLine(first, BODY_PREVIEW_CHARS)} (${count})`;
}

/** The seven fields, each with its current value. */
export function fieldChoices(
  agent: AgentDefinition,
  layers: ConfigLayers,
  inherited: InheritedModelThinking = {},
): Choice<AgentField>[] {
  const view = agentModelView(agent, layers, inherited);
  const values: Record<AgentField, string> = {
    description: oneLine(agent.description, VALUE_PREVIEW_CHARS),
    // The file's `mcp` and `disallowedTools` are shown beside the tools (edited in the file; docs/mcp.md).
    tools: [
      listValue(agent.tools, NOT_SET),
      ...(agent.mcp?.length ? [`mcp: ${agent.mcp.join(", ")}`] : []),
      ...(agent.disallowedTools?.length ? [`disallowed: ${agent.disallowedTools.join(", ")}`] : []),
    ].join(" · "),
    // An empty skills key is not "unset": it turns the global skills off for this agent.
    skills: listValue(agent.skills, "none (global skills off)"),
    body: bodySummary(agent.body),
    "model & thinking": `${formatModelThinking(view.effective, inherited)}${savedSuffix(view)}`,
    budget: budgetFieldValue(agent, layers),
    sandbox: sandboxFieldValue(agent, layers),
  };
  return AGENT_FIELDS.map((field) => ({ label: `${field}${ANNOTATION_SEPARATOR}${values[field]}`, value: field }));
}

export type ModelAction = "edit" | "clear";

/** The action layer of the model & thinking sub-flow. */
export function modelActionChoices(
  agent: AgentDefinition,
  layers: ConfigLayers,
  inherited: InheritedModelThinking = {},
): Choice<ModelAction>[] {
  const view = agentModelView(agent, layers, inherited);
  return [
    {
      label: `${EDIT_MODEL_THINKING}${ANNOTATION_SEPARATOR}${formatModelThinking(view.effective, inherited)}${savedSuffix(view)}`,
      value: "edit",
    },
    { label: CLEAR_MODEL_THINKING, value: "clear" },
  ];
}

/** The `$models` list as a select, the effective model marked `(current)`. */
export function modelValueChoices(models: readonly string[], currentModel: string | undefined): Choice<string>[] {
  return models.map((model) => ({ label: withCurrentMark(model, model === currentModel), value: model }));
}

/** The last option of the model step: the person types any `provider/model-id`. */
export const TYPE_MODEL_ENTRY = "type a model (provider/model-id)…";

type ModelPick = { kind: "model"; model: string } | { kind: "type" };

/**
 * The model step's options: `$models` when that list is set (it is the person's own choice of models), else the
 * models pi can use now (its registry); the effective model `(current)`; then the free-text entry, always last.
 */
function modelPickChoices(listed: readonly string[], current: string | undefined): Choice<ModelPick>[] {
  const models: Choice<ModelPick>[] = [...new Set(listed)].map((model) => ({
    label: withCurrentMark(model, model === current),
    value: { kind: "model", model },
  }));
  models.push({ label: TYPE_MODEL_ENTRY, value: { kind: "type" } });
  return models;
}

/** The seven levels, then `not set` (null: the key is dropped); the effective level, or unset, is `(current)`. */
export function thinkingChoices(current: ThinkingLevel | undefined): Choice<ThinkingLevel | null>[] {
  const levels: Choice<ThinkingLevel | null>[] = THINKING_LEVELS.map((level) => ({
    label: withCurrentMark(level, level === current),
    value: level,
  }));
  levels.push({ label: withCurrentMark(NOT_SET, current === undefined), value: null });
  return levels;
}

/** `this process` / `user` / `project`, the layer that governs the agent now marked `(current)`. */
export function writeTargetChoices(
  governing: WriteTarget | undefined,
  offerProject: boolean = true,
): Choice<WriteTarget>[] {
  const choices: Choice<WriteTarget>[] = [
    { label: withCurrentMark(PROCESS_TARGET_LABEL, governing === "process"), value: "process" },
    { label: withCurrentMark("user", governing === "user"), value: "user" },
  ];
  // An untrusted project's file counts for nothing: writing to it would only look like it worked.
  if (offerProject) choices.push({ label: withCurrentMark("project", governing === "project"), value: "project" });
  return choices;
}

/** `user` / `project` for `$models` edits, the file the list in force comes from marked `(current)`. */
export function modelsTargetChoices(
  source: AvailableModels["source"],
  offerProject: boolean = true,
): Choice<FileTarget>[] {
  const choices: Choice<FileTarget>[] = [{ label: withCurrentMark("user", source === "user"), value: "user" }];
  if (offerProject) choices.push({ label: withCurrentMark("project", source === "project"), value: "project" });
  return choices;
}

type ModelsAction = "add" | "remove";

function modelsManagerChoices(): Choice<ModelsAction>[] {
  return [
    { label: ADD_MODEL_ENTRY, value: "add" },
    { label: REMOVE_MODEL_ENTRY, value: "remove" },
  ];
}

/** Where a built-in agent can be copied before it is edited. */
function copyDestinationChoices(agentDirs: ConfigSnapshot["agentDirs"]): Choice<FileTarget>[] {
  const choices: Choice<FileTarget>[] = [{ label: `user agents folder (${agentDirs.user})`, value: "user" }];
  if (agentDirs.project !== undefined)
    choices.push({ label: `project agents folder (${agentDirs.project})`, value: "project" });
  return choices;
}

// Titles. They carry the context an option cannot (paths, what a target means); none of them is ever written.

function agentPickerTitle(agentCount: number): string {
  return agentCount === 0
    ? "Configure subagents (no agents found: only the model list can be managed)"
    : "Configure subagents: pick an agent";
}

function fieldSelectTitle(agent: AgentDefinition): string {
  return `Configure ${agent.name} (${sourceText(agent)}): ${agent.filePath}`;
}

function modelActionTitle(agent: AgentDefinition): string {
  return `${agent.name}: model & thinking`;
}

function modelValueTitle(agent: AgentDefinition, models: AvailableModels): string {
  return `${agent.name}: model (from $models, ${models.source ?? "user"} list)`;
}

function registryModelTitle(agent: AgentDefinition): string {
  return `${agent.name}: model (the models pi can use now)`;
}

function modelInputTitle(agent: AgentDefinition): string {
  return `${agent.name}: model (provider/model-id)`;
}

function thinkingTitle(agent: AgentDefinition): string {
  return `${agent.name}: thinking level (not set: no thinking key in the entry)`;
}

function targetLines(paths: ConfigSnapshot["configPaths"]): string[] {
  return [
    `  ${PROCESS_TARGET_LABEL}: memory only, nothing written to disk; gone when pi exits or on /reload`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"}`,
  ];
}

function writeTargetTitle(agent: AgentDefinition, paths: ConfigSnapshot["configPaths"], action: ModelAction): string {
  const head =
    action === "edit" ? `${agent.name}: write model & thinking to` : `${agent.name}: clear model & thinking in`;
  return [head, ...targetLines(paths)].join("\n");
}

function copyDestinationTitle(agent: AgentDefinition): string {
  return `${agent.name} is a built-in agent (part of the package) and is not edited in place. Copy it to (the copy then shadows the built-in):`;
}

export function modelsManagerTitle(models: AvailableModels, paths: ConfigSnapshot["configPaths"]): string {
  if (models.models.length === 0 || models.source === undefined) {
    const head =
      models.source === undefined
        ? "The list is empty ($models is not set in the user or project file)."
        : `The list is empty (an empty $models in the ${models.source} file).`;
    return `Available models ($models)\n${head}`;
  }
  const file = models.source === "project" ? paths.project : paths.user;
  return [
    `Available models ($models), from the ${models.source} file (${file ?? "?"}):`,
    ...models.models.map((model) => `  ${model}`),
  ].join("\n");
}

function modelToAddTitle(): string {
  return "Model to add to $models (provider/model-id)";
}

function modelToRemoveTitle(): string {
  return "Model to remove from $models";
}

function modelsTargetTitle(action: ModelsAction, model: string, paths: ConfigSnapshot["configPaths"]): string {
  const head = action === "add" ? `Add ${model} to $models in` : `Remove ${model} from $models in`;
  return [head, `  user: ${paths.user}`, `  project: ${paths.project ?? "no project folder here"}`].join("\n");
}

function descriptionTitle(agent: AgentDefinition): string {
  return `${agent.name}: description (one line)`;
}

function listFieldTitle(agent: AgentDefinition, field: "tools" | "skills"): string {
  return `${agent.name}: ${field} (comma-separated; leave empty to remove the ${field} key)`;
}

/*
 * The texts of /subagent-config's `budget` field (pure): the field's value in the field select, the three
 * limits with their values and sources, the input and target titles, and the notices after a write.
 */
function agentBudget(agent: AgentDefinition, layers: ConfigLayers): ResolvedBudget {
  return resolveConfiguredBudget(agent, layers, readEnvBudget().limits);
}

function shown(key: BudgetKey, value: number): string {
  return key === "maxCost" ? formatCost(value) : String(value);
}

/** `8 (frontmatter)`, `$1.00 (project)`, `not set`. */
function budgetValueText(budget: ResolvedBudget, key: BudgetKey): string {
  const value = budget.limits[key];
  if (value === undefined) return NOT_SET;
  const source = budget.sources[key] === "env" ? "environment" : budget.sources[key];
  return `${shown(key, value)} (${source})`;
}

/** The field select's value: `maxTurns 8 (frontmatter), maxCost $1.00 (project)` or `not set`. */
function budgetFieldValue(agent: AgentDefinition, layers: ConfigLayers): string {
  const budget = agentBudget(agent, layers);
  const parts = BUDGET_KEYS.filter((key) => budget.limits[key] !== undefined).map(
    (key) => `${key} ${budgetValueText(budget, key)}`,
  );
  return parts.length > 0 ? parts.join(", ") : NOT_SET;
}

function budgetKeyChoices(agent: AgentDefinition, layers: ConfigLayers): Choice<BudgetKey>[] {
  const budget = agentBudget(agent, layers);
  return BUDGET_KEYS.map((key) => ({
    label: `${key}${ANNOTATION_SEPARATOR}${budgetValueText(budget, key)}`,
    value: key,
  }));
}

function budgetKeyTitle(agent: AgentDefinition): string {
  return `${agent.name}: budget (a limit reached stops the subagent, keeping its partial output)`;
}

function budgetInputTitle(agent: AgentDefinition, key: BudgetKey): string {
  const rule = key === "maxCost" ? "a number greater than 0, in the model's currency" : "a whole number of at least 1";
  return `${agent.name}: ${key} (${rule}; empty clears it)`;
}

function budgetTargetTitle(agent: AgentDefinition, paths: ConfigSnapshot["configPaths"], key: BudgetKey): string {
  return [
    `${agent.name}: write ${key} to`,
    `  ${PROCESS_TARGET_LABEL}: memory only, nothing written to disk; gone when pi exits or on /reload`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"}`,
  ].join("\n");
}

function invalidBudgetNotice(agentName: string, key: BudgetKey, typed: string): string {
  const rule = key === "maxCost" ? "a number greater than 0" : "a whole number of at least 1";
  return `${agentName}: ${key} must be ${rule} (got ${JSON.stringify(typed.slice(0, 40))}); nothing written.`;
}

function budgetWrittenNotice(
  agentName: string,
  key: BudgetKey,
  value: number | null,
  target: WriteTarget,
  filePath: string | undefined,
  changed: boolean,
): string {
  const where = target === "process" ? PROCESS_TARGET_LABEL : (filePath ?? target);
  if (!changed) return `${agentName}: ${key} unchanged in ${where}; nothing written.`;
  return value === null
    ? `${agentName}: ${key} cleared in ${where}.`
    : `${agentName}: ${key} ${shown(key, value)} saved to ${where}.`;
}

/*
 * The texts of /subagent-config's `sandbox` field (pure): the level in force with who set it, the level choices,
 * the titles and the notice after a write. The level is written to a subagent-isolation.json entry only: the
 * process layer holds no sandbox, and a project file's entry can only make it stricter.
 */
/** The level a dispatch without a `sandbox` parameter would run the agent with. */
function agentSandbox(agent: AgentDefinition, layers: ConfigLayers): ResolvedSandbox {
  const settings = readSandboxSettings({ user: layers.user ?? {}, project: layers.project ?? {} });
  return resolveSandbox({
    agent,
    userEntry: layers.user?.entries[agent.name]?.sandbox,
    userDefault: settings.userDefault,
    projectEntry: layers.project?.entries[agent.name]?.sandbox,
    projectDefault: settings.projectDefault,
  });
}

/** `read-only (frontmatter)`, `off (default)`. */
function sandboxFieldValue(agent: AgentDefinition, layers: ConfigLayers): string {
  const resolved = agentSandbox(agent, layers);
  return `${resolved.level} (${resolved.source})`;
}

/** The three levels, and clearing the entry's value (back to the frontmatter or `$sandbox`). */
function sandboxLevelChoices(agent: AgentDefinition, layers: ConfigLayers): Choice<SandboxLevel | null>[] {
  const current = agentSandbox(agent, layers).level;
  return [
    ...SANDBOX_LEVELS.map((level) => ({ label: level === current ? `${level} (current)` : level, value: level })),
    {
      label: `clear${ANNOTATION_SEPARATOR}the entry's sandbox goes; the frontmatter or "$sandbox" applies`,
      value: null,
    },
  ];
}

function sandboxLevelTitle(agent: AgentDefinition): string {
  return `${agent.name}: sandbox (read-only: nothing of yours writable; workspace-write: only its working folder; the network stays open)`;
}

function sandboxTargetTitle(agent: AgentDefinition, paths: ConfigSnapshot["configPaths"]): string {
  return [
    `${agent.name}: write sandbox to`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"} (can only make the sandbox stricter)`,
  ].join("\n");
}

function sandboxWrittenNotice(
  agentName: string,
  value: SandboxLevel | null,
  target: FileTarget,
  filePath: string | undefined,
  changed: boolean,
  effective: SandboxLevel,
): string {
  const where = filePath ?? target;
  if (!changed) return `${agentName}: sandbox unchanged in ${where}; nothing written.`;
  const done =
    value === null ? `${agentName}: sandbox cleared in ${where}.` : `${agentName}: sandbox ${value} saved to ${where}.`;
  return effective === value || value === null
    ? `${done} It runs with sandbox ${effective}.`
    : `${done} It still runs with sandbox ${effective}: only your own settings can loosen a sandbox.`;
}

/*
 * The result notices of /subagent-config, pure. Each says what was (or was not) written, where, and when it
 * takes effect: a description edit is in the roster of the main agent's next turn (the roster follows the agent
 * files); every other edit counts from the next dispatch, which re-reads the agent files and the config.
 */
export const PROCESS_WRITE_NOTE =
  "written to this process (memory only — no file written; disappears when the process exits)";
const NEXT_DISPATCH = "Takes effect on the next dispatch.";
const ROSTER_NEXT_TURN = "The main agent's subagent roster shows it from its next turn.";
const USAGE = "Usage: /subagent-config [agent-name]";
export const NON_TUI_WARNING = `/subagent-config is interactive and needs pi's TUI; nothing was shown or changed. Run it in an interactive pi session (not with -p or --mode json). ${USAGE}`;

function targetPlace(target: WriteTarget | FileTarget, filePath: string | undefined): string {
  if (target === "process") return "this process";
  return filePath === undefined ? target : `${target} (${filePath})`;
}

export function unknownAgentNotice(name: string, known: readonly string[]): string {
  const list = known.length === 0 ? "No agents are defined." : `Known agents: ${known.join(", ")}.`;
  return `Unknown agent "${name}". ${list} ${USAGE}`;
}

function agentGoneNotice(name: string): string {
  return `The agent "${name}" is no longer defined (its file was removed or renamed).`;
}

function describeValues(model: string, thinking: string | null): string {
  return `model ${model}, thinking ${thinking ?? NOT_SET}`;
}

export interface ModelWriteNoticeInput {
  agentName: string;
  model: string;
  thinking: string | null;
  target: WriteTarget;
  filePath?: string;
  changed: boolean;
  /** The agent's effective values after the write, and the layer that governs it now. */
  after: ResolvedModelConfig;
  governingAfter?: WriteTarget;
}

/** A higher layer keeps governing the agent: say so, or the person would expect the new values in effect. */
function shadowNote(target: WriteTarget, governingAfter: WriteTarget | undefined, after: ResolvedModelConfig): string {
  if (governingAfter === undefined || governingAfter === target) return "";
  return ` Note: the ${governingAfter} entry takes precedence over ${target}, so dispatch still uses ${formatModelThinking(after)}.`;
}

export function modelWrittenNotice(input: ModelWriteNoticeInput): string {
  const values = describeValues(input.model, input.thinking);
  const shadow = shadowNote(input.target, input.governingAfter, input.after);
  if (!input.changed)
    return `${input.agentName}: ${values} already in ${targetPlace(input.target, input.filePath)}; nothing written.${shadow}`;
  const where =
    input.target === "process" ? PROCESS_WRITE_NOTE : `written to ${targetPlace(input.target, input.filePath)}`;
  return `${input.agentName}: ${values}; ${where}. ${NEXT_DISPATCH}${shadow}`;
}

/**
 * A field's value after a clear. Unset means the chain reached the frontmatter and found nothing there, so
 * "frontmatter" is named then too; a model left unset is inherited from the main agent at dispatch.
 */
export function fallbackText(field: "model" | "thinking", resolved: ResolvedValue<string>): string {
  if (resolved.value !== undefined) return `${resolved.value} (${resolved.source ?? NOT_SET})`;
  return field === "model"
    ? `${NOT_SET} (frontmatter has none; the main agent's model is inherited)`
    : `${NOT_SET} (frontmatter has none)`;
}

export interface ClearNoticeInput {
  agentName: string;
  target: WriteTarget;
  filePath?: string;
  changed: boolean;
  after: ResolvedModelConfig;
}

export function modelClearedNotice(input: ClearNoticeInput): string {
  const now = `model ${fallbackText("model", input.after.model)}, thinking ${fallbackText("thinking", input.after.thinking)}`;
  if (!input.changed) {
    return `${input.agentName}: no model & thinking entry in ${targetPlace(input.target, input.filePath)}; nothing changed. In effect: ${now}.`;
  }
  const where =
    input.target === "process"
      ? "this process (memory only; no file written)"
      : targetPlace(input.target, input.filePath);
  return `${input.agentName}: model & thinking cleared in ${where}. Now: ${now}. ${NEXT_DISPATCH}`;
}

function emptyModelNotice(agentName: string): string {
  return `${agentName}: the model cannot be empty (provider/model-id); nothing written.`;
}

function copiedPrefix(agent: AgentDefinition, filePath: string): string {
  return `Copied the built-in agent ${agent.name} to ${filePath}; the copy now shadows the built-in. `;
}

function emptyDescriptionNotice(agentName: string): string {
  return `${agentName}: the description cannot be empty; nothing written.`;
}

function unchangedNotice(agentName: string, field: string): string {
  return `${agentName}: ${field} unchanged; nothing written.`;
}

function descriptionSavedNotice(agentName: string, filePath: string): string {
  return `${agentName}: description saved to ${filePath}. ${ROSTER_NEXT_TURN}`;
}

function listFieldSavedNotice(
  agentName: string,
  field: "tools" | "skills",
  list: readonly string[],
  filePath: string,
): string {
  if (list.length > 0) return `${agentName}: ${field} set to ${list.join(", ")} in ${filePath}. ${NEXT_DISPATCH}`;
  const meaning = field === "tools" ? "pi's default tools apply" : "the global skills apply";
  return `${agentName}: ${field} key removed from ${filePath} (${meaning}). ${NEXT_DISPATCH}`;
}

function bodySavedNotice(agentName: string, filePath: string): string {
  return `${agentName}: body saved to ${filePath}. ${NEXT_DISPATCH}`;
}

function emptyBodyNotice(agentName: string): string {
  return `${agentName}: the edited body is empty (whitespace only); nothing written. An agent needs a system prompt.`;
}

/** The notice for an editor that did not deliver a body (unchanged bodies are reported by unchangedNotice). */
export function editorProblemNotice(
  agentName: string,
  outcome: Extract<BodyEditOutcome, { kind: "launch-failed" | "exit-code" }>,
): string {
  if (outcome.kind === "launch-failed") {
    return `${agentName}: could not start the editor "${outcome.command}" (${outcome.reason}); nothing written. Set $EDITOR (or $VISUAL) to an editor that runs here.`;
  }
  const how = outcome.signal
    ? `was ended by signal ${outcome.signal}`
    : `exited with code ${outcome.code ?? "unknown"}`;
  return `${agentName}: the editor "${outcome.command}" ${how}; nothing written.`;
}

/** Said after a change to a $models list that a higher list hides. */
function modelsShadowNote(target: FileTarget, shadowedBy: FileTarget | undefined): string {
  return shadowedBy
    ? ` Note: the ${shadowedBy} $models list shadows the ${target} list, so the list in force is unchanged.`
    : "";
}

function modelAddedNotice(
  model: string,
  target: FileTarget,
  filePath: string | undefined,
  changed: boolean,
  shadowedBy?: FileTarget,
): string {
  const place = targetPlace(target, filePath);
  const shadow = modelsShadowNote(target, shadowedBy);
  return changed
    ? `Added ${model} to $models in ${place}.${shadow}`
    : `${model} is already in $models in ${place}; nothing written.${shadow}`;
}

function modelRemovedNotice(
  model: string,
  target: FileTarget,
  filePath: string | undefined,
  changed: boolean,
  shadowedBy?: FileTarget,
): string {
  const place = targetPlace(target, filePath);
  const shadow = modelsShadowNote(target, shadowedBy);
  return changed
    ? `Removed ${model} from $models in ${place}.${shadow}`
    : `${model} is not in $models in ${place}; nothing written.${shadow}`;
}

function emptyModelsListNotice(): string {
  return "The $models list is empty; there is nothing to remove.";
}

function removeConfirmMessage(model: string, target: FileTarget, filePath: string | undefined): string {
  return `Remove ${model} from $models in ${targetPlace(target, filePath)}?`;
}

/*
 * The /subagent-config flow: a small state machine of menus over the ports in types.ts (no pi, no I/O here).
 *
 * Levels, outermost first: agent picker → field select → the field's steps (for `model & thinking`: the action
 * layer → model value → thinking level → write target). Esc always walks back exactly one level and writes
 * nothing:
 * - a text input, the body editor, a copy-destination select → field select;
 * - model value, thinking level or write target → the model & thinking action layer (collected values dropped);
 * - the action layer → field select;
 * - field select → agent picker, or out of the command when it was opened as `/subagent-config <name>`;
 * - agent picker → out of the command;
 * - in the `$models` manager: input, model, target or a declined confirmation → manager; manager → picker.
 * A successful write ends the edit: its notice is shown and the flow is back at the field select (or the
 * manager), with every annotation recomputed from disk and memory. Back-off paths recompute nothing.
 */
/** Where an agent-file edit lands: the agent's own file, or a new copy of a built-in agent. */
type EditDestination = { kind: "in-place" } | { kind: "copy"; to: FileTarget };

/** Comma-separated input → the list it means (trimmed, blanks dropped, first occurrence kept). */
function parseListInput(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
    ),
  ];
}

/** A body as compared for "unchanged": line breaks, a BOM, leading blank lines and trailing whitespace ignored. */
function normalizeBody(text: string): string {
  return text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .replace(/\s+$/, "");
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class SubagentConfigFlow {
  private readonly dialogs: ConfigDialogs;

  private readonly store: ConfigStore;

  private snapshot: ConfigSnapshot;

  constructor(dialogs: ConfigDialogs, store: ConfigStore) {
    this.dialogs = dialogs;
    this.store = store;
    this.snapshot = store.load();
  }

  /** Runs the command: `args` empty opens the picker, otherwise it names the agent to jump to. */
  async run(args: string): Promise<void> {
    const name = args.trim();
    if (name === "") return this.agentPicker();
    if (!this.agentNamed(name)) {
      this.dialogs.notify(
        unknownAgentNotice(
          name,
          this.snapshot.agents.map((agent) => agent.name),
        ),
        "error",
      );
      return;
    }
    // Opened on one agent: Esc at its field select leaves the command (there is no picker to go back to).
    return this.fieldSelect(name);
  }

  private agentNamed(name: string): AgentDefinition | undefined {
    return this.snapshot.agents.find((agent) => agent.name === name);
  }

  /** Re-reads agents and config: after every successful write, never on a back-off path. */
  private refresh(): void {
    this.snapshot = this.store.load();
  }

  private async choose<T>(title: string, choices: readonly Choice<T>[]): Promise<T | undefined> {
    const labels = choices.map((choice) => choice.label);
    const picked = await this.dialogs.select(title, labels);
    if (picked === undefined) return undefined;
    const index = labels.indexOf(picked);
    return index < 0 ? undefined : choices[index]?.value;
  }

  private async agentPicker(): Promise<void> {
    for (;;) {
      const picked = await this.choose(
        agentPickerTitle(this.snapshot.agents.length),
        agentPickerChoices(this.snapshot),
      );
      if (picked === undefined) return;
      if (picked.kind === "models") await this.modelsManager();
      else await this.fieldSelect(picked.name);
    }
  }

  private async fieldSelect(name: string): Promise<void> {
    for (;;) {
      const agent = this.agentNamed(name);
      if (!agent) {
        this.dialogs.notify(agentGoneNotice(name), "error");
        return;
      }
      const field = await this.choose(
        fieldSelectTitle(agent),
        fieldChoices(agent, this.snapshot.layers, inheritedOf(this.snapshot)),
      );
      if (field === undefined) return;
      await this.editField(agent, field);
    }
  }

  private async editField(agent: AgentDefinition, field: AgentField): Promise<void> {
    switch (field) {
      case "description":
        return this.editDescription(agent);
      case "tools":
      case "skills":
        return this.editList(agent, field);
      case "body":
        return this.editBody(agent);
      case "model & thinking":
        return this.modelAndThinking(agent);
      case "budget":
        return this.editBudget(agent);
      case "sandbox":
        return this.editSandbox(agent);
    }
  }

  // Sandbox ---------------------------------------------------------------------------------------------

  /** Level (or clear) → user or project file → one write. Esc goes back one level; a write ends it. */
  private async editSandbox(agent: AgentDefinition): Promise<void> {
    for (;;) {
      const level = await this.choose(sandboxLevelTitle(agent), sandboxLevelChoices(agent, this.snapshot.layers));
      if (level === undefined) return;
      // No process layer: the sandbox is read from the files only.
      const target = await this.choose(
        sandboxTargetTitle(agent, this.snapshot.configPaths),
        modelsTargetChoices(undefined, !this.snapshot.projectUntrusted),
      );
      if (target === undefined) continue;
      let result: WriteResult;
      try {
        result = await this.store.writeModelConfig(target, agent.name, { sandbox: level });
      } catch (error) {
        this.dialogs.notify(errorText(error), "error");
        continue;
      }
      if (result.changed) this.refresh();
      const effective = agentSandbox(this.agentNamed(agent.name) ?? agent, this.snapshot.layers).level;
      this.dialogs.notify(
        sandboxWrittenNotice(agent.name, level, target, result.filePath, result.changed, effective),
        "info",
      );
      return;
    }
  }

  // Budget ----------------------------------------------------------------------------------------------

  /** Limit → value (empty clears) → target → one write. Esc at any step goes back one level; a write ends it. */
  private async editBudget(agent: AgentDefinition): Promise<void> {
    for (;;) {
      const key = await this.choose(budgetKeyTitle(agent), budgetKeyChoices(agent, this.snapshot.layers));
      if (key === undefined) return;
      const current = agentBudget(agent, this.snapshot.layers).limits[key];
      const typed = await this.dialogs.input(
        budgetInputTitle(agent, key),
        current === undefined ? "" : String(current),
      );
      if (typed === undefined) continue;
      let value: number | null = null;
      if (typed.trim() !== "") {
        const parsed = budgetValue(key, typed);
        if (parsed === undefined) {
          this.dialogs.notify(invalidBudgetNotice(agent.name, key, typed), "error");
          continue;
        }
        value = parsed;
      }
      const governing = agentModelView(agent, this.snapshot.layers).governing;
      const target = await this.choose(
        budgetTargetTitle(agent, this.snapshot.configPaths, key),
        writeTargetChoices(governing, !this.snapshot.projectUntrusted),
      );
      if (target === undefined) continue;
      let result: WriteResult;
      try {
        result = await this.store.writeModelConfig(target, agent.name, { [key]: value });
      } catch (error) {
        this.dialogs.notify(errorText(error), "error");
        continue;
      }
      if (result.changed) this.refresh();
      this.dialogs.notify(budgetWrittenNotice(agent.name, key, value, target, result.filePath, result.changed), "info");
      return;
    }
  }

  // Agent-file fields -------------------------------------------------------------------------------------

  /** A built-in agent is copied before it is edited: ask where (Esc: back to the field select). */
  private async destinationFor(agent: AgentDefinition): Promise<EditDestination | undefined> {
    if (agent.source !== "builtin") return { kind: "in-place" };
    const to = await this.choose(copyDestinationTitle(agent), copyDestinationChoices(this.snapshot.agentDirs));
    return to === undefined ? undefined : { kind: "copy", to };
  }

  /** Writes the change; on success refreshes and shows `notice(path)`, on refusal shows the reason. */
  private async writeAgentChange(
    agent: AgentDefinition,
    destination: EditDestination,
    change: AgentFileChange,
    notice: (filePath: string) => string,
  ): Promise<void> {
    let result: WriteResult;
    try {
      result =
        destination.kind === "in-place"
          ? await this.store.changeAgentFile(agent, change)
          : await this.store.copyBuiltinAgent(agent, destination.to, change);
    } catch (error) {
      this.dialogs.notify(errorText(error), "error");
      return;
    }
    const filePath = result.filePath ?? agent.filePath;
    if (!result.changed) {
      this.dialogs.notify(
        unchangedNotice(agent.name, change.kind === "body" ? "body" : Object.keys(change.patch).join(", ")),
        "info",
      );
      return;
    }
    this.refresh();
    const prefix = destination.kind === "copy" ? copiedPrefix(agent, filePath) : "";
    this.dialogs.notify(prefix + notice(filePath), "info");
  }

  private async editDescription(agent: AgentDefinition): Promise<void> {
    const destination = await this.destinationFor(agent);
    if (!destination) return;
    const typed = await this.dialogs.input(descriptionTitle(agent), agent.description);
    if (typed === undefined) return;
    const description = typed.trim();
    if (description === "") {
      this.dialogs.notify(emptyDescriptionNotice(agent.name), "error");
      return;
    }
    if (description === agent.description.trim()) {
      this.dialogs.notify(unchangedNotice(agent.name, "description"), "info");
      return;
    }
    await this.writeAgentChange(agent, destination, { kind: "frontmatter", patch: { description } }, (filePath) =>
      descriptionSavedNotice(agent.name, filePath),
    );
  }

  private async editList(agent: AgentDefinition, field: "tools" | "skills"): Promise<void> {
    const destination = await this.destinationFor(agent);
    if (!destination) return;
    const current = agent[field];
    const typed = await this.dialogs.input(listFieldTitle(agent, field), (current ?? []).join(", "));
    if (typed === undefined) return;
    const list = parseListInput(typed);
    // Empty input deletes the key; that is a change only when the key is there.
    const unchanged = list.length === 0 ? current === undefined : current !== undefined && sameList(list, current);
    if (unchanged) {
      this.dialogs.notify(unchangedNotice(agent.name, field), "info");
      return;
    }
    const patch =
      field === "tools"
        ? { tools: list.length === 0 ? null : list.join(", ") }
        : { skills: list.length === 0 ? null : list.join(", ") };
    await this.writeAgentChange(agent, destination, { kind: "frontmatter", patch }, (filePath) =>
      listFieldSavedNotice(agent.name, field, list, filePath),
    );
  }

  private async editBody(agent: AgentDefinition): Promise<void> {
    const destination = await this.destinationFor(agent);
    if (!destination) return;
    const outcome = await this.dialogs.editBody(agent.name, agent.body);
    switch (outcome.kind) {
      case "cancelled":
        return;
      case "launch-failed":
      case "exit-code":
        this.dialogs.notify(editorProblemNotice(agent.name, outcome), "error");
        return;
      case "edited":
        break;
    }
    const body = normalizeBody(outcome.text);
    if (body === "") {
      this.dialogs.notify(emptyBodyNotice(agent.name), "warning");
      return;
    }
    if (body === normalizeBody(agent.body)) {
      this.dialogs.notify(unchangedNotice(agent.name, "body"), "info");
      return;
    }
    await this.writeAgentChange(agent, destination, { kind: "body", body }, (filePath) =>
      bodySavedNotice(agent.name, filePath),
    );
  }

  // Model & thinking --------------------------------------------------------------------------------------

  /** The action layer. Esc here → field select; Esc in any later step → back here. Returns after a write. */
  private async modelAndThinking(agent: AgentDefinition): Promise<void> {
    for (;;) {
      const action = await this.choose(
        modelActionTitle(agent),
        modelActionChoices(agent, this.snapshot.layers, inheritedOf(this.snapshot)),
      );
      if (action === undefined) return;
      const finished = action === "edit" ? await this.editModelThinking(agent) : await this.clearModelThinking(agent);
      if (finished) return;
    }
  }

  private async chooseWriteTarget(agent: AgentDefinition, action: ModelAction): Promise<WriteTarget | undefined> {
    const governing = agentModelView(agent, this.snapshot.layers).governing;
    return this.choose(
      writeTargetTitle(agent, this.snapshot.configPaths, action),
      writeTargetChoices(governing, !this.snapshot.projectUntrusted),
    );
  }

  private async chooseModel(agent: AgentDefinition, current: string | undefined): Promise<string | undefined> {
    const models = this.snapshot.models;
    const fromList = models.models.length > 0;
    const listed = fromList ? models.models : (this.snapshot.registryModels ?? []);
    if (listed.length > 0) {
      const title = fromList ? modelValueTitle(agent, models) : registryModelTitle(agent);
      const picked = await this.choose(
        title,
        modelPickChoices(listed, current ?? (fromList ? undefined : this.snapshot.inheritedModel)),
      );
      if (picked === undefined || picked.kind === "model") return picked?.model;
    }
    return this.dialogs.input(modelInputTitle(agent), current ?? this.snapshot.inheritedModel ?? "");
  }

  /**
   * Model → thinking → target → one patch with both fields. True when it ended with a write attempt that went through (even if nothing changed).
   */
  private async editModelThinking(agent: AgentDefinition): Promise<boolean> {
    const effective = agentModelView(agent, this.snapshot.layers).effective;
    const typedModel = await this.chooseModel(agent, effective.model.value);
    if (typedModel === undefined) return false;
    const model = typedModel.trim();
    if (model === "") {
      this.dialogs.notify(emptyModelNotice(agent.name), "error");
      return false;
    }
    const thinking: ThinkingLevel | null | undefined = await this.choose(
      thinkingTitle(agent),
      thinkingChoices(effective.thinking.value),
    );
    if (thinking === undefined) return false;
    const target = await this.chooseWriteTarget(agent, "edit");
    if (target === undefined) return false;

    let result: WriteResult;
    try {
      result = await this.store.writeModelConfig(target, agent.name, { model, thinking });
    } catch (error) {
      // Refused before anything was written: back to the action layer, where another target can be tried.
      this.dialogs.notify(errorText(error), "error");
      return false;
    }
    if (result.changed) this.refresh();
    const notice = modelWrittenNotice({
      agentName: agent.name,
      model,
      thinking,
      target,
      ...(result.filePath !== undefined ? { filePath: result.filePath } : {}),
      changed: result.changed,
      ...this.effectiveAfter(agent),
    });
    this.dialogs.notify(notice, "info");
    return true;
  }

  /** Target → both fields cleared (the whole entry goes). The notice names each field's new fallback. */
  private async clearModelThinking(agent: AgentDefinition): Promise<boolean> {
    const target = await this.chooseWriteTarget(agent, "clear");
    if (target === undefined) return false;
    let result: WriteResult;
    try {
      result = await this.store.writeModelConfig(target, agent.name, { model: null, thinking: null });
    } catch (error) {
      // Refused before anything was written: back to the action layer, where another target can be tried.
      this.dialogs.notify(errorText(error), "error");
      return false;
    }
    if (result.changed) this.refresh();
    const notice = modelClearedNotice({
      agentName: agent.name,
      target,
      ...(result.filePath !== undefined ? { filePath: result.filePath } : {}),
      changed: result.changed,
      after: this.effectiveAfter(agent).after,
    });
    this.dialogs.notify(notice, "info");
    return true;
  }

  /** The agent's values and governing layer in the current snapshot (the agent's own file may be gone). */
  private effectiveAfter(agent: AgentDefinition): { after: ResolvedModelConfig; governingAfter?: WriteTarget } {
    const current = this.agentNamed(agent.name) ?? agent;
    const after = resolveModelConfig(current, this.snapshot.layers);
    const governing = governingEntry(agent.name, this.snapshot.layers);
    return governing ? { after, governingAfter: governing.source } : { after };
  }

  // $models ------------------------------------------------------------------------------------------------

  private async modelsManager(): Promise<void> {
    for (;;) {
      const action = await this.choose(
        modelsManagerTitle(this.snapshot.models, this.snapshot.configPaths),
        modelsManagerChoices(),
      );
      if (action === undefined) return;
      if (action === "add") await this.addModel();
      else await this.removeModel();
    }
  }

  /** The other file whose list shadows `target`'s (only a project list can shadow the user list). */
  private listShadowing(target: FileTarget): FileTarget | undefined {
    return target === "user" && this.snapshot.models.source === "project" ? "project" : undefined;
  }

  private async addModel(): Promise<void> {
    const typed = await this.dialogs.input(modelToAddTitle(), "");
    if (typed === undefined) return;
    const model = typed.trim();
    if (model === "") {
      this.dialogs.notify("The model cannot be empty (provider/model-id); nothing written.", "error");
      return;
    }
    const target = await this.choose(
      modelsTargetTitle("add", model, this.snapshot.configPaths),
      modelsTargetChoices(this.snapshot.models.source, !this.snapshot.projectUntrusted),
    );
    if (target === undefined) return;
    let result: WriteResult;
    try {
      result = await this.store.addModel(target, model);
    } catch (error) {
      this.dialogs.notify(errorText(error), "error");
      return;
    }
    if (result.changed) this.refresh();
    this.dialogs.notify(
      modelAddedNotice(model, target, result.filePath, result.changed, this.listShadowing(target)),
      "info",
    );
  }

  private async removeModel(): Promise<void> {
    const models = this.snapshot.models.models;
    if (models.length === 0) {
      this.dialogs.notify(emptyModelsListNotice(), "info");
      return;
    }
    const model = await this.choose(modelToRemoveTitle(), modelValueChoices(models, undefined));
    if (model === undefined) return;
    const target = await this.choose(
      modelsTargetTitle("remove", model, this.snapshot.configPaths),
      modelsTargetChoices(this.snapshot.models.source, !this.snapshot.projectUntrusted),
    );
    if (target === undefined) return;
    const filePath = target === "user" ? this.snapshot.configPaths.user : this.snapshot.configPaths.project;
    if (!(await this.dialogs.confirm("Remove a model from $models", removeConfirmMessage(model, target, filePath))))
      return;
    let result: WriteResult;
    try {
      result = await this.store.removeModel(target, model);
    } catch (error) {
      this.dialogs.notify(errorText(error), "error");
      return;
    }
    if (result.changed) this.refresh();
    this.dialogs.notify(
      modelRemovedNotice(model, target, result.filePath ?? filePath, result.changed, this.listShadowing(target)),
      "info",
    );
  }
}

/** Runs /subagent-config over the given ports. */
export function runSubagentConfigFlow(dialogs: ConfigDialogs, store: ConfigStore, args: string): Promise<void> {
  return new SubagentConfigFlow(dialogs, store).run(args);
}
