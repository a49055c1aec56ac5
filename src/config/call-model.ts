/**
 * Whether a tool call's own `model` may run: it must name a model pi knows (`provider/id`, looked up in pi's
 * model registry by the caller) and, where a non-empty `$models` list is in force, be one of its entries. Pure.
 */
import type { AvailableModels } from "./types.ts";

/** `provider/id` split at the first `/` (an id may itself hold slashes, as OpenRouter's do). */
export function splitModelRef(ref: string): { provider: string; id: string } | undefined {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), id: ref.slice(slash + 1) };
}

/** The refusal of a call's model, or undefined when it may run. `known` asks pi's model registry. */
export function callModelProblem(model: string, available: AvailableModels, known: (provider: string, id: string) => boolean): string | undefined {
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
