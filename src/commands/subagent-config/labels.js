// @ts-check
/**
 * Every menu of /subagent-config as data: the option labels with their annotations, each paired with the value
 * it stands for. Pure. The flow shows the labels and maps the chosen label back by its position in the list,
 * so an annotation (a current value, a source, `(current)`, `[saved: ...]`) never ends up in a written value.
 */
/** @import { AgentDefinition } from "../../agents/types.ts" */
import { governingEntry, resolveModelConfig, resolveSavedModelConfig } from "../../config/resolve.js";
/** @import { ConfigLayers } from "../../config/resolve.js" */
/** @import { AvailableModels, ResolvedModelConfig, ResolvedValue } from "../../config/types.ts" */
import { oneLine } from "../../shared/format.js";
import { THINKING_LEVELS } from "../../shared/thinking.js";
/** @import { ThinkingLevel } from "../../shared/thinking.js" */
/** @import { ConfigSnapshot, FileTarget, WriteTarget } from "./types.ts" */

import { budgetFieldValue } from "./budget-labels.js";
/**
 * One option of a menu and what choosing it means.
 * @template T
 * @typedef {object} Choice
 * @property {string} label
 * @property {T} value
 */

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

export const AGENT_FIELDS = /** @type {const} */ (["description", "tools", "skills", "body", "model & thinking", "budget"]);
/** @typedef {(typeof AGENT_FIELDS)[number]} AgentField */

/** How long a current value may get inside an option before it is cut (the dialog wraps, but stays readable). */
const VALUE_PREVIEW_CHARS = 72;
const BODY_PREVIEW_CHARS = 72;

/**
 * @param {string} label
 * @param {boolean} isCurrent
 * @returns {string}
 */
function withCurrentMark(label, isCurrent) {
  return isCurrent ? `${label} ${CURRENT_MARK}` : label;
}

/**
 * `value (source)`, or `not set` with no source.
 * @param {ResolvedValue<string>} resolved
 * @returns {string}
 */
export function formatSourcedValue(resolved) {
  return resolved.value === undefined ? NOT_SET : `${resolved.value} (${resolved.source ?? NOT_SET})`;
}

/**
 * `<model> (<source>) / <thinking> (<source>)`, each slot `not set` when nothing sets it.
 * @param {ResolvedModelConfig} resolved
 * @returns {string}
 */
export function formatModelThinking(resolved) {
  return `${formatSourcedValue(resolved.model)} / ${formatSourcedValue(resolved.thinking)}`;
}

/**
 * The `[saved: ...]` fragment: what the config files and frontmatter say, without the process layer.
 * @param {ResolvedModelConfig} saved
 * @returns {string}
 */
export function formatSavedFragment(saved) {
  return `[saved: ${formatModelThinking(saved)}]`;
}

/**
 * What the annotations of one agent are computed from. Inheritance is left out: unset shows as `not set`.
 * @typedef {object} AgentModelView
 * @property {ResolvedModelConfig} effective
 * @property {ResolvedModelConfig} [saved] Present only when the agent has a process-level override: the values without it.
 * @property {WriteTarget} [governing] The layer whose entry governs the agent (`(current)` in the write-target menu), if any.
 */

/**
 * @param {AgentDefinition} agent
 * @param {ConfigLayers} layers
 * @returns {AgentModelView}
 */
export function agentModelView(agent, layers) {
  /** @type {AgentModelView} */
  const view = { effective: resolveModelConfig(agent, layers) };
  if (layers.process && Object.hasOwn(layers.process.entries, agent.name)) view.saved = resolveSavedModelConfig(agent, layers);
  const governing = governingEntry(agent.name, layers);
  if (governing) view.governing = governing.source;
  return view;
}

/**
 * @param {AgentModelView} view
 * @returns {string}
 */
function savedSuffix(view) {
  return view.saved ? ` ${formatSavedFragment(view.saved)}` : "";
}

/**
 * `<name> (<source>) — <model> (<thinking>)`, plus ` (process) [saved: ...]` with a process override.
 * @param {AgentDefinition} agent
 * @param {ConfigLayers} layers
 * @returns {string}
 */
export function agentPickerLine(agent, layers) {
  const view = agentModelView(agent, layers);
  const model = view.effective.model.value ?? NOT_SET;
  const thinking = view.effective.thinking.value ?? NOT_SET;
  const badge = view.saved ? ` ${PROCESS_BADGE}${savedSuffix(view)}` : "";
  return `${agent.name} (${agent.source})${ANNOTATION_SEPARATOR}${model} (${thinking})${badge}`;
}

/** @typedef {{ kind: "agent"; name: string } | { kind: "models" }} PickerValue */

/**
 * The agent picker: one line per agent (in discovery order), then the `$models` entry, always last.
 * @param {Pick<ConfigSnapshot, "agents" | "layers">} snapshot
 * @returns {Choice<PickerValue>[]}
 */
export function agentPickerChoices(snapshot) {
  /** @type {Choice<PickerValue>[]} */
  const choices = snapshot.agents.map((agent) => ({
    label: agentPickerLine(agent, snapshot.layers),
    value: { kind: "agent", name: agent.name },
  }));
  choices.push({ label: MANAGE_MODELS_ENTRY, value: { kind: "models" } });
  return choices;
}

/**
 * @param {readonly string[] | undefined} list
 * @param {string} emptyMeaning
 * @returns {string}
 */
function listValue(list, emptyMeaning) {
  if (list === undefined) return NOT_SET;
  if (list.length === 0) return emptyMeaning;
  return oneLine(list.join(", "), VALUE_PREVIEW_CHARS);
}

/**
 * A one-line preview of the body: its first non-blank line and its size.
 * @param {string} body
 * @returns {string}
 */
export function bodySummary(body) {
  const lines = body.split("\n");
  const first = lines.find((line) => line.trim() !== "") ?? "";
  if (first === "") return "(empty)";
  const count = lines.length === 1 ? "1 line" : `${lines.length} lines`;
  return `${oneLine(first, BODY_PREVIEW_CHARS)} (${count})`;
}

/**
 * The six fields, each with its current value.
 * @param {AgentDefinition} agent
 * @param {ConfigLayers} layers
 * @returns {Choice<AgentField>[]}
 */
export function fieldChoices(agent, layers) {
  const view = agentModelView(agent, layers);
  /** @type {Record<AgentField, string>} */
  const values = {
    description: oneLine(agent.description, VALUE_PREVIEW_CHARS),
    tools: listValue(agent.tools, NOT_SET),
    // An empty skills key is not "unset": it turns the global skills off for this agent.
    skills: listValue(agent.skills, "none (global skills off)"),
    body: bodySummary(agent.body),
    "model & thinking": `${formatModelThinking(view.effective)}${savedSuffix(view)}`,
    budget: budgetFieldValue(agent, layers),
  };
  return AGENT_FIELDS.map((field) => ({ label: `${field}${ANNOTATION_SEPARATOR}${values[field]}`, value: field }));
}

/** @typedef {"edit" | "clear"} ModelAction */

/**
 * The action layer of the model & thinking sub-flow.
 * @param {AgentDefinition} agent
 * @param {ConfigLayers} layers
 * @returns {Choice<ModelAction>[]}
 */
export function modelActionChoices(agent, layers) {
  const view = agentModelView(agent, layers);
  return [
    { label: `${EDIT_MODEL_THINKING}${ANNOTATION_SEPARATOR}${formatModelThinking(view.effective)}${savedSuffix(view)}`, value: "edit" },
    { label: CLEAR_MODEL_THINKING, value: "clear" },
  ];
}

/**
 * The `$models` list as a select, the effective model marked `(current)`.
 * @param {readonly string[]} models
 * @param {string | undefined} currentModel
 * @returns {Choice<string>[]}
 */
export function modelValueChoices(models, currentModel) {
  return models.map((model) => ({ label: withCurrentMark(model, model === currentModel), value: model }));
}

/**
 * The seven levels, then `not set` (null: the key is dropped); the effective level, or unset, is `(current)`.
 * @param {ThinkingLevel | undefined} current
 * @returns {Choice<ThinkingLevel | null>[]}
 */
export function thinkingChoices(current) {
  /** @type {Choice<ThinkingLevel | null>[]} */
  const levels = THINKING_LEVELS.map((level) => ({
    label: withCurrentMark(level, level === current),
    value: level,
  }));
  levels.push({ label: withCurrentMark(NOT_SET, current === undefined), value: null });
  return levels;
}

/**
 * `this process` / `user` / `project`, the layer that governs the agent now marked `(current)`.
 * @param {WriteTarget | undefined} governing
 * @returns {Choice<WriteTarget>[]}
 */
export function writeTargetChoices(governing) {
  return [
    { label: withCurrentMark(PROCESS_TARGET_LABEL, governing === "process"), value: "process" },
    { label: withCurrentMark("user", governing === "user"), value: "user" },
    { label: withCurrentMark("project", governing === "project"), value: "project" },
  ];
}

/**
 * `user` / `project` for `$models` edits, the file the list in force comes from marked `(current)`.
 * @param {AvailableModels["source"]} source
 * @returns {Choice<FileTarget>[]}
 */
export function modelsTargetChoices(source) {
  return [
    { label: withCurrentMark("user", source === "user"), value: "user" },
    { label: withCurrentMark("project", source === "project"), value: "project" },
  ];
}

/** @typedef {"add" | "remove"} ModelsAction */

/** @returns {Choice<ModelsAction>[]} */
export function modelsManagerChoices() {
  return [
    { label: ADD_MODEL_ENTRY, value: "add" },
    { label: REMOVE_MODEL_ENTRY, value: "remove" },
  ];
}

/**
 * Where a built-in agent can be copied before it is edited.
 * @param {ConfigSnapshot["agentDirs"]} agentDirs
 * @returns {Choice<FileTarget>[]}
 */
export function copyDestinationChoices(agentDirs) {
  /** @type {Choice<FileTarget>[]} */
  const choices = [{ label: `user agents folder (${agentDirs.user})`, value: "user" }];
  if (agentDirs.project !== undefined) choices.push({ label: `project agents folder (${agentDirs.project})`, value: "project" });
  return choices;
}

// Titles. They carry the context an option cannot (paths, what a target means); none of them is ever written.

/**
 * @param {number} agentCount
 * @returns {string}
 */
export function agentPickerTitle(agentCount) {
  return agentCount === 0 ? "Configure subagents (no agents found: only the model list can be managed)" : "Configure subagents: pick an agent";
}

/**
 * @param {AgentDefinition} agent
 * @returns {string}
 */
export function fieldSelectTitle(agent) {
  return `Configure ${agent.name} (${agent.source}): ${agent.filePath}`;
}

/**
 * @param {AgentDefinition} agent
 * @returns {string}
 */
export function modelActionTitle(agent) {
  return `${agent.name}: model & thinking`;
}

/**
 * @param {AgentDefinition} agent
 * @param {AvailableModels} models
 * @returns {string}
 */
export function modelValueTitle(agent, models) {
  return `${agent.name}: model (from $models, ${models.source ?? "user"} list)`;
}

/**
 * @param {AgentDefinition} agent
 * @returns {string}
 */
export function modelInputTitle(agent) {
  return `${agent.name}: model (provider/model-id)`;
}

/**
 * @param {AgentDefinition} agent
 * @returns {string}
 */
export function thinkingTitle(agent) {
  return `${agent.name}: thinking level (not set: no thinking key in the entry)`;
}

/**
 * @param {ConfigSnapshot["configPaths"]} paths
 * @returns {string[]}
 */
function targetLines(paths) {
  return [
    `  ${PROCESS_TARGET_LABEL}: memory only, nothing written to disk; gone when pi exits or on /reload`,
    `  user: ${paths.user}`,
    `  project: ${paths.project ?? "no project folder here"}`,
  ];
}

/**
 * @param {AgentDefinition} agent
 * @param {ConfigSnapshot["configPaths"]} paths
 * @param {ModelAction} action
 * @returns {string}
 */
export function writeTargetTitle(agent, paths, action) {
  const head = action === "edit" ? `${agent.name}: write model & thinking to` : `${agent.name}: clear model & thinking in`;
  return [head, ...targetLines(paths)].join("\n");
}

/**
 * @param {AgentDefinition} agent
 * @returns {string}
 */
export function copyDestinationTitle(agent) {
  return `${agent.name} is a built-in agent (part of the package) and is not edited in place. Copy it to (the copy then shadows the built-in):`;
}

/**
 * @param {AvailableModels} models
 * @param {ConfigSnapshot["configPaths"]} paths
 * @returns {string}
 */
export function modelsManagerTitle(models, paths) {
  if (models.models.length === 0 || models.source === undefined) {
    const head = models.source === undefined ? "The list is empty ($models is not set in the user or project file)." : `The list is empty (an empty $models in the ${models.source} file).`;
    return `Available models ($models)\n${head}`;
  }
  const file = models.source === "project" ? paths.project : paths.user;
  return [`Available models ($models), from the ${models.source} file (${file ?? "?"}):`, ...models.models.map((model) => `  ${model}`)].join("\n");
}

/** @returns {string} */
export function modelToAddTitle() {
  return "Model to add to $models (provider/model-id)";
}

/** @returns {string} */
export function modelToRemoveTitle() {
  return "Model to remove from $models";
}

/**
 * @param {ModelsAction} action
 * @param {string} model
 * @param {ConfigSnapshot["configPaths"]} paths
 * @returns {string}
 */
export function modelsTargetTitle(action, model, paths) {
  const head = action === "add" ? `Add ${model} to $models in` : `Remove ${model} from $models in`;
  return [head, `  user: ${paths.user}`, `  project: ${paths.project ?? "no project folder here"}`].join("\n");
}

/**
 * @param {AgentDefinition} agent
 * @returns {string}
 */
export function descriptionTitle(agent) {
  return `${agent.name}: description (one line)`;
}

/**
 * @param {AgentDefinition} agent
 * @param {"tools" | "skills"} field
 * @returns {string}
 */
export function listFieldTitle(agent, field) {
  return `${agent.name}: ${field} (comma-separated; leave empty to remove the ${field} key)`;
}
