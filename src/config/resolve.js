// @ts-check
/**
 * Which model and thinking level an agent runs with, and where each came from. Pure.
 *
 * Layers shadow by whole key: the highest layer that has an entry for the agent (process > project > user)
 * is the only one consulted; a field that entry leaves unset falls through to the agent's frontmatter, never
 * to a lower layer's entry. The model finally falls back to the main agent's current model (`inherited`);
 * the thinking level is never inherited.
 */
/** @import { AgentDefinition } from "../agents/types.ts" */
/** @import { ConfigLayer, ModelOverride, ResolvedModelConfig, ValueSource } from "./types.ts" */

/**
 * @typedef {object} ConfigLayers
 * @property {ConfigLayer} [user]
 * @property {ConfigLayer} [project]
 * @property {ConfigLayer} [process]
 */

/** @typedef {Pick<AgentDefinition, "name" | "model" | "thinking">} AgentModelFields */

/** Highest precedence first. */
const LAYER_ORDER = /** @type {const} */ (["process", "project", "user"]);

/**
 * The entry that governs `agentName` and the layer it sits in, if any layer has one.
 * @param {string} agentName
 * @param {ConfigLayers} layers
 * @returns {{ entry: ModelOverride, source: "process" | "project" | "user" } | undefined}
 */
export function governingEntry(agentName, layers) {
  for (const source of LAYER_ORDER) {
    const entries = layers[source]?.entries;
    if (entries && Object.hasOwn(entries, agentName)) {
      const entry = entries[agentName];
      if (entry) return { entry, source };
    }
  }
  return undefined;
}

/**
 * The merged view `{...user, ...project, ...process}` every reader sees.
 * @param {ConfigLayers} layers
 * @returns {Record<string, ModelOverride>}
 */
export function mergeOverrideEntries(layers) {
  return Object.assign(
    /** @type {Record<string, ModelOverride>} */ (Object.create(null)),
    layers.user?.entries,
    layers.project?.entries,
    layers.process?.entries,
  );
}

/**
 * The effective model and thinking level of `agent`, each with its source. `inheritedModel` is the main
 * agent's current model as `provider/id`; leave it out where inheriting makes no sense.
 * @param {AgentModelFields} agent
 * @param {ConfigLayers} layers
 * @param {string} [inheritedModel]
 * @returns {ResolvedModelConfig}
 */
export function resolveModelConfig(agent, layers, inheritedModel) {
  const governing = governingEntry(agent.name, layers);
  /** @type {ResolvedModelConfig} */
  const resolved = { model: {}, thinking: {} };

  /** @type {{ value: string, source: ValueSource } | undefined} */
  let model;
  if (governing?.entry.model !== undefined) model = { value: governing.entry.model, source: governing.source };
  else if (agent.model !== undefined) model = { value: agent.model, source: "frontmatter" };
  else if (inheritedModel !== undefined && inheritedModel !== "") model = { value: inheritedModel, source: "inherited" };
  if (model) resolved.model = model;

  if (governing?.entry.thinking !== undefined) resolved.thinking = { value: governing.entry.thinking, source: governing.source };
  else if (agent.thinking !== undefined) resolved.thinking = { value: agent.thinking, source: "frontmatter" };

  return resolved;
}

/**
 * What the config files and the frontmatter say, ignoring the process layer and inheritance: the values the
 * agent would fall back to if its in-memory override went away (the `[saved: ...]` annotation).
 * @param {AgentModelFields} agent
 * @param {ConfigLayers} layers
 * @returns {ResolvedModelConfig}
 */
export function resolveSavedModelConfig(agent, layers) {
  /** @type {ConfigLayers} */
  const withoutProcess = {};
  if (layers.user) withoutProcess.user = layers.user;
  if (layers.project) withoutProcess.project = layers.project;
  return resolveModelConfig(agent, withoutProcess);
}

/**
 * The main agent's current model as `provider/id` (what a subagent inherits), if pi has one.
 * @param {{ provider: string, id: string } | undefined} model
 * @returns {string | undefined}
 */
export function currentModelRef(model) {
  return model ? `${model.provider}/${model.id}` : undefined;
}
