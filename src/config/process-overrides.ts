/**
 * The process layer: per-agent model/thinking overrides that live only in this process's memory (the
 * `this process` write target). Never written to disk; gone when pi exits or loads the extension again (/reload;
 * on pi 1.x also /new, /resume and /fork): each load evaluates this module afresh, and the layer with it.
 */
import type { SandboxLevel } from "../sandbox/levels.ts";
import { agentNameProblem } from "../agents/names.ts";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.ts";
import { emptyLayer } from "./read-layer.ts";
import { BUDGET_KEYS, budgetValueProblem } from "../budget/limits.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";
import type { ConfigLayer, ModelOverride } from "./types.ts";

/** For each field: a value sets it, `null` clears it, `undefined` (or absent) leaves it as it is. */
export interface ModelOverridePatch {
  model?: string | null;
  thinking?: ThinkingLevel | null;
  /** Budget limits (src/budget/limits.ts), patched the same way. */
  maxTurns?: number | null;
  maxTokens?: number | null;
  maxCost?: number | null;
  /** The agent's sandbox (written to the files only; the process layer keeps none: see resolve-sandbox.ts). */
  sandbox?: SandboxLevel | null;
}

/** The layer of this load of the extension (a new load evaluates this module, and so this map, afresh). */
const overrides: Map<string, ModelOverride> = new Map();

/**
 * Applies a patch to one agent's in-memory override. All checks run before anything changes; an invalid
 * name or value throws and leaves the layer untouched. An entry left with no field is removed.
 */
export function setProcessOverride(agentName: string, patch: ModelOverridePatch): void {
  const nameProblem = agentNameProblem(agentName);
  if (nameProblem) throw new Error(`Cannot override ${JSON.stringify(agentName)}: ${nameProblem}.`);
  const next: ModelOverride = { ...overrides.get(agentName) };
  if (patch.model !== undefined) {
    if (patch.model === null) delete next.model;
    else if (typeof patch.model === "string" && patch.model.trim() !== "") next.model = patch.model.trim();
    else throw new Error("The model must be a non-empty string (provider/model-id).");
  }
  if (patch.thinking !== undefined) {
    if (patch.thinking === null) delete next.thinking;
    else if (isThinkingLevel(patch.thinking)) next.thinking = patch.thinking;
    else throw new Error(`The thinking level must be one of ${THINKING_LEVELS.join(", ")}.`);
  }
  for (const key of BUDGET_KEYS) {
    const value = patch[key];
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else if (budgetValueProblem(key, value) === undefined && typeof value === "number") next[key] = value;
    else throw new Error(`The ${key} ${budgetValueProblem(key, value)?.replace(`"${key}" `, "") ?? "is invalid"}.`);
  }
  if (next.model === undefined && next.thinking === undefined && BUDGET_KEYS.every((key) => next[key] === undefined)) overrides.delete(agentName);
  else overrides.set(agentName, next);
}

/** A copy of every in-memory override; changing it changes nothing. */
export function getProcessOverrides(): Record<string, ModelOverride> {
  const copy = (Object.create(null) as Record<string, ModelOverride>);
  for (const [name, entry] of overrides) copy[name] = { ...entry };
  return copy;
}

/** Removes one agent's in-memory override (a missing entry is fine). */
export function clearProcessOverride(agentName: string): void {
  overrides.delete(agentName);
}

/** Empties the layer, as a process exit or /reload would. For tests. */
export function resetProcessOverridesForTests(): void {
  overrides.clear();
}

/** The process layer in the same shape as the file layers. */
export function processLayer(): ConfigLayer {
  const layer = emptyLayer("process");
  layer.entries = getProcessOverrides();
  return layer;
}
