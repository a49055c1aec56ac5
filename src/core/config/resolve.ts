/**
 * Which model and thinking level an agent runs with, and where each came from. Pure.
 *
 * Layers shadow by whole key: the highest layer that has an entry for the agent (process > project > user)
 * is the only one consulted; a field that entry leaves unset falls through to the agent's frontmatter, never
 * to a lower layer's entry. The model finally falls back to the main agent's current model (`inherited`);
 * the thinking level is never inherited. A tool call's own `model` or `thinking` sits above every layer, for
 * that task only.
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
const LAYER_ORDER = (["process", "project", "user"] as const);

/** The entry that governs `agentName` and the layer it sits in, if any layer has one. */
export function governingEntry(agentName: string, layers: ConfigLayers): { entry: ModelOverride; source: "process" | "project" | "user" } | undefined {
  for (const source of LAYER_ORDER) {
    const entries = layers[source]?.entries;
    if (entries && Object.hasOwn(entries, agentName)) {
      const entry = entries[agentName];
      if (entry) return { entry, source };
    }
  }
  return undefined;
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
