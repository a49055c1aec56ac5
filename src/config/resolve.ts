/**
 * Which model and thinking level an agent runs with, and where each came from. Pure.
 *
 * Layers shadow by whole key: the highest layer whose entry for the agent sets a model or a thinking level
 * (process > project > user) is the only one consulted; a field that entry leaves unset falls through to the
 * agent's frontmatter, never to a lower layer's entry. An entry holding only budgets takes no part: budgets
 * shadow per field (src/config/resolve-budget.ts), so adding one never hides a lower layer's model. The
 * model finally falls back to the main agent's current model (`inherited`); the thinking level is never
 * inherited. A tool call's own `model` or `thinking` sits above every layer, for that task only.
 */
import type { AgentDefinition } from "../agents/types.ts";
import type { ConfigLayer, ModelOverride, ResolvedModelConfig, ValueSource } from "./types.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";

export interface ConfigLayers {
  user?: ConfigLayer;
  project?: ConfigLayer;
  process?: ConfigLayer;
}

export type AgentModelFields = Pick<AgentDefinition, "name" | "model" | "thinking">;

/** Highest precedence first. */
export const LAYER_ORDER = (["process", "project", "user"] as const);

export type EntryLayerName = (typeof LAYER_ORDER)[number];

/** The agent's entry in each layer that has one, highest precedence first. */
export function entriesOf(agentName: string, layers: ConfigLayers): { entry: ModelOverride; source: EntryLayerName }[] {
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
export function governingEntry(agentName: string, layers: ConfigLayers): { entry: ModelOverride; source: EntryLayerName } | undefined {
  return entriesOf(agentName, layers).find(({ entry }) => entry.model !== undefined || entry.thinking !== undefined);
}

/** The merged view `{...user, ...project, ...process}` every reader sees. */
export function mergeOverrideEntries(layers: ConfigLayers): Record<string, ModelOverride> {
  return Object.assign(
    (Object.create(null) as Record<string, ModelOverride>),
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
export function resolveModelConfig(agent: AgentModelFields, layers: ConfigLayers, inheritedModel?: string, call: CallModelChoice = {}): ResolvedModelConfig {
  const governing = governingEntry(agent.name, layers);
  const resolved: ResolvedModelConfig = { model: {}, thinking: {} };

  let model: { value: string; source: ValueSource } | undefined;
  if (call.model !== undefined) model = { value: call.model, source: "call" };
  else if (governing?.entry.model !== undefined) model = { value: governing.entry.model, source: governing.source };
  else if (agent.model !== undefined) model = { value: agent.model, source: "frontmatter" };
  else if (inheritedModel !== undefined && inheritedModel !== "") model = { value: inheritedModel, source: "inherited" };
  if (model) resolved.model = model;

  if (call.thinking !== undefined) resolved.thinking = { value: call.thinking, source: "call" };
  else if (governing?.entry.thinking !== undefined) resolved.thinking = { value: governing.entry.thinking, source: governing.source };
  else if (agent.thinking !== undefined) resolved.thinking = { value: agent.thinking, source: "frontmatter" };

  return resolved;
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
