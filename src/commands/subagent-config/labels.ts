/**
 * Every menu of /subagent-config as data: the option labels with their annotations, each paired with the value
 * it stands for. Pure. The flow shows the labels and maps the chosen label back by its position in the list,
 * so an annotation (a current value, a source, `(current)`, `[saved: ...]`) never ends up in a written value.
 */
import type { AgentDefinition } from "../../agents/types.ts";
import { governingEntry, resolveModelConfig, resolveSavedModelConfig } from "../../config/resolve.ts";
import type { ConfigLayers } from "../../config/resolve.ts";
import type { AvailableModels, ResolvedModelConfig, ResolvedValue } from "../../config/types.ts";
import { oneLine } from "../../shared/format.ts";
import { THINKING_LEVELS } from "../../shared/thinking.ts";
import type { ThinkingLevel } from "../../shared/thinking.ts";
import type { ConfigSnapshot, FileTarget, WriteTarget } from "./config-types.ts";

import { budgetFieldValue } from "./budget-labels.ts";
import { sandboxFieldValue } from "./sandbox-labels.ts";
/** One option of a menu and what choosing it means. */
export interface Choice<T> {
  label: string;
  value: T;
}

export const NOT_SET = "not set";
export const CURRENT_MARK = "(current)";
export const PROCESS_BADGE = "(process)";
/** Between an option's name and its current value. */
export const ANNOTATION_SEPARATOR = " — ";

export const MANAGE_MODELS_ENTRY = "Manage available model list ($models)";
export const EDIT_MODEL_THINKING = "edit model & thinking";
export const CLEAR_MODEL_THINKING = "clear model & thinking (reset to frontmatter)";
export const PROCESS_TARGET_LABEL = "this process";
export const ADD_MODEL_ENTRY = "add a model";
export const REMOVE_MODEL_ENTRY = "remove a model";

export const AGENT_FIELDS = (["description", "tools", "skills", "body", "model & thinking", "budget", "sandbox"] as const);
export type AgentField = (typeof AGENT_FIELDS)[number];

/** How long a current value may get inside an option before it is cut (the dialog wraps, but stays readable). */
const VALUE_PREVIEW_CHARS = 72;
const BODY_PREVIEW_CHARS = 72;

function withCurrentMark(label: string, isCurrent: boolean): string {
  return isCurrent ? `${label} ${CURRENT_MARK}` : label;
}

/** `value (source)`, or `not set` with no source. */
export function formatSourcedValue(resolved: ResolvedValue<string>): string {
  return resolved.value === undefined ? NOT_SET : `${resolved.value} (${resolved.source ?? NOT_SET})`;
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
export interface AgentModelView {
  effective: ResolvedModelConfig;
  /** Present only when the agent has a process-level override: the values without it. */
  saved?: ResolvedModelConfig;
  /** The layer whose entry governs the agent (`(current)` in the write-target menu), if any. */
  governing?: WriteTarget;
  inherited: InheritedModelThinking;
}

export function agentModelView(agent: AgentDefinition, layers: ConfigLayers, inherited: InheritedModelThinking = {}): AgentModelView {
  const view: AgentModelView = { effective: resolveModelConfig(agent, layers), inherited };
  if (layers.process && Object.hasOwn(layers.process.entries, agent.name)) view.saved = resolveSavedModelConfig(agent, layers);
  const governing = governingEntry(agent.name, layers);
  if (governing) view.governing = governing.source;
  return view;
}

function savedSuffix(view: AgentModelView): string {
  return view.saved ? ` ${formatSavedFragment(view.saved, view.inherited)}` : "";
}

/**
 * `<name> (<source>) — <model> · thinking <level>` (an unset slot: `inherits fake/fake-model · thinking off`),
 * plus ` (process) [saved: ...]` with a process override.
 */
export function agentPickerLine(agent: AgentDefinition, layers: ConfigLayers, inherited: InheritedModelThinking = {}): string {
  const view = agentModelView(agent, layers, inherited);
  const values = `${modelSlot(view.effective, inherited, false)} · ${thinkingSlot(view.effective, inherited, false)}`;
  const badge = view.saved ? ` ${PROCESS_BADGE}${savedSuffix(view)}` : "";
  return `${agent.name} (${agent.source})${ANNOTATION_SEPARATOR}${values}${badge}`;
}

/** What a snapshot says is inherited. */
export function inheritedOf(snapshot: Pick<ConfigSnapshot, "inheritedModel" | "inheritedThinking">): InheritedModelThinking {
  const inherited: InheritedModelThinking = {};
  if (snapshot.inheritedModel !== undefined) inherited.model = snapshot.inheritedModel;
  if (snapshot.inheritedThinking !== undefined) inherited.thinking = snapshot.inheritedThinking;
  return inherited;
}

export type PickerValue = { kind: "agent"; name: string } | { kind: "models" };

/** The agent picker: one line per agent (in discovery order), then the `$models` entry, always last. */
export function agentPickerChoices(snapshot: Pick<ConfigSnapshot, "agents" | "layers" | "inheritedModel" | "inheritedThinking">): Choice<PickerValue>[] {
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
export function fieldChoices(agent: AgentDefinition, layers: ConfigLayers, inherited: InheritedModelThinking = {}): Choice<AgentField>[] {
  const view = agentModelView(agent, layers, inherited);
  const values: Record<AgentField, string> = {
    description: oneLine(agent.description, VALUE_PREVIEW_CHARS),
    tools: listValue(agent.tools, NOT_SET),
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
export function modelActionChoices(agent: AgentDefinition, layers: ConfigLayers, inherited: InheritedModelThinking = {}): Choice<ModelAction>[] {
  const view = agentModelView(agent, layers, inherited);
  return [
    { label: `${EDIT_MODEL_THINKING}${ANNOTATION_SEPARATOR}${formatModelThinking(view.effective, inherited)}${savedSuffix(view)}`, value: "edit" },
    { label: CLEAR_MODEL_THINKING, value: "clear" },
  ];
}

/** The `$models` list as a select, the effective model marked `(current)`. */
export function modelValueChoices(models: readonly string[], currentModel: string | undefined): Choice<string>[] {
  return models.map((model) => ({ label: withCurrentMark(model, model === currentModel), value: model }));
}

/** The last option of the model step: the person types any `provider/model-id`. */
export const TYPE_MODEL_ENTRY = "type a model (provider/model-id)…";

export type ModelPick = { kind: "model"; model: string } | { kind: "type" };

/**
 * The model step's options: `$models` when that list is set (it is the person's own choice of models), else the
 * models pi can use now (its registry); the effective model `(current)`; then the free-text entry, always last.
 */
export function modelPickChoices(listed: readonly string[], current: string | undefined): Choice<ModelPick>[] {
  const models: Choice<ModelPick>[] = [...new Set(listed)].map((model) => ({ label: withCurrentMark(model, model === current), value: { kind: "model", model } }));
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
export function writeTargetChoices(governing: WriteTarget | undefined, offerProject: boolean = true): Choice<WriteTarget>[] {
  const choices: Choice<WriteTarget>[] = [
    { label: withCurrentMark(PROCESS_TARGET_LABEL, governing === "process"), value: "process" },
    { label: withCurrentMark("user", governing === "user"), value: "user" },
  ];
  // An untrusted project's file counts for nothing: writing to it would only look like it worked.
  if (offerProject) choices.push({ label: withCurrentMark("project", governing === "project"), value: "project" });
  return choices;
}

/** `user` / `project` for `$models` edits, the file the list in force comes from marked `(current)`. */
export function modelsTargetChoices(source: AvailableModels["source"], offerProject: boolean = true): Choice<FileTarget>[] {
  const choices: Choice<FileTarget>[] = [{ label: withCurrentMark("user", source === "user"), value: "user" }];
  if (offerProject) choices.push({ label: withCurrentMark("project", source === "project"), value: "project" });
  return choices;
}

export type ModelsAction = "add" | "remove";

export function modelsManagerChoices(): Choice<ModelsAction>[] {
  return [
    { label: ADD_MODEL_ENTRY, value: "add" },
    { label: REMOVE_MODEL_ENTRY, value: "remove" },
  ];
}

/** Where a built-in agent can be copied before it is edited. */
export function copyDestinationChoices(agentDirs: ConfigSnapshot["agentDirs"]): Choice<FileTarget>[] {
  const choices: Choice<FileTarget>[] = [{ label: `user agents folder (${agentDirs.user})`, value: "user" }];
  if (agentDirs.project !== undefined) choices.push({ label: `project agents folder (${agentDirs.project})`, value: "project" });
  return choices;
}

// Titles. They carry the context an option cannot (paths, what a target means); none of them is ever written.

export function agentPickerTitle(agentCount: number): string {
  return agentCount === 0 ? "Configure subagents (no agents found: only the model list can be managed)" : "Configure subagents: pick an agent";
}

export function fieldSelectTitle(agent: AgentDefinition): string {
  return `Configure ${agent.name} (${agent.source}): ${agent.filePath}`;
}

export function modelActionTitle(agent: AgentDefinition): string {
  return `${agent.name}: model & thinking`;
}

export function modelValueTitle(agent: AgentDefinition, models: AvailableModels): string {
  return `${agent.name}: model (from $models, ${models.source ?? "user"} list)`;
}

export function registryModelTitle(agent: AgentDefinition): string {
  return `${agent.name}: model (the models pi can use now)`;
}

export function modelInputTitle(agent: AgentDefinition): string {
  return `${agent.name}: model (provider/model-id)`;
}

export function thinkingTitle(agent: AgentDefinition): string {
  return `${agent.name}: thinking level (not set: no thinking key in the entry)`;
}

function targetLines(paths: ConfigSnapshot["configPaths"]): string[] {
  return [
    `  ${PROCESS_TARGET_LABEL}: memory only, nothing written to disk; gone when pi exits or on /reload`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"}`,
  ];
}

export function writeTargetTitle(agent: AgentDefinition, paths: ConfigSnapshot["configPaths"], action: ModelAction): string {
  const head = action === "edit" ? `${agent.name}: write model & thinking to` : `${agent.name}: clear model & thinking in`;
  return [head, ...targetLines(paths)].join("\n");
}

export function copyDestinationTitle(agent: AgentDefinition): string {
  return `${agent.name} is a built-in agent (part of the package) and is not edited in place. Copy it to (the copy then shadows the built-in):`;
}

export function modelsManagerTitle(models: AvailableModels, paths: ConfigSnapshot["configPaths"]): string {
  if (models.models.length === 0 || models.source === undefined) {
    const head = models.source === undefined ? "The list is empty ($models is not set in the user or project file)." : `The list is empty (an empty $models in the ${models.source} file).`;
    return `Available models ($models)\n${head}`;
  }
  const file = models.source === "project" ? paths.project : paths.user;
  return [`Available models ($models), from the ${models.source} file (${file ?? "?"}):`, ...models.models.map((model) => `  ${model}`)].join("\n");
}

export function modelToAddTitle(): string {
  return "Model to add to $models (provider/model-id)";
}

export function modelToRemoveTitle(): string {
  return "Model to remove from $models";
}

export function modelsTargetTitle(action: ModelsAction, model: string, paths: ConfigSnapshot["configPaths"]): string {
  const head = action === "add" ? `Add ${model} to $models in` : `Remove ${model} from $models in`;
  return [head, `  user: ${paths.user}`, `  project: ${paths.project ?? "no project folder here"}`].join("\n");
}

export function descriptionTitle(agent: AgentDefinition): string {
  return `${agent.name}: description (one line)`;
}

export function listFieldTitle(agent: AgentDefinition, field: "tools" | "skills"): string {
  return `${agent.name}: ${field} (comma-separated; leave empty to remove the ${field} key)`;
}
