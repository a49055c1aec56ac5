// @ts-check
/**
 * The process layer: per-agent model/thinking overrides that live only in this process's memory (the
 * `this process` write target). Never written to disk; gone when pi exits or loads the extension again (/reload;
 * on pi 1.x also /new, /resume and /fork). Node keeps this module loaded across those, so the layer remembers the
 * load it belongs to (src/shared/extension-instance.js) and starts empty under a new one.
 */
import { agentNameProblem } from "../agents/names.js";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.js";
import { emptyLayer } from "./read-layer.js";
import { BUDGET_KEYS, budgetValueProblem } from "../budget/limits.js";
import { currentExtensionLoad } from "../shared/extension-instance.js";
/** @import { ThinkingLevel } from "../shared/thinking.js" */
/** @import { ConfigLayer, ModelOverride } from "./types.ts" */

/**
 * For each field: a value sets it, `null` clears it, `undefined` (or absent) leaves it as it is.
 * @typedef {object} ModelOverridePatch
 * @property {string | null} [model]
 * @property {ThinkingLevel | null} [thinking]
 * @property {number | null} [maxTurns] Budget limits (src/budget/limits.js), patched the same way.
 * @property {number | null} [maxTokens]
 * @property {number | null} [maxCost]
 */

/** @type {Map<string, ModelOverride>} */
let overridesOfLoad = new Map();
let overridesLoad = currentExtensionLoad();

/**
 * The layer of the current load of the extension.
 * @returns {Map<string, ModelOverride>}
 */
function currentOverrides() {
  const load = currentExtensionLoad();
  if (load !== overridesLoad) {
    overridesOfLoad = new Map();
    overridesLoad = load;
  }
  return overridesOfLoad;
}

/**
 * Applies a patch to one agent's in-memory override. All checks run before anything changes; an invalid
 * name or value throws and leaves the layer untouched. An entry left with no field is removed.
 * @param {string} agentName
 * @param {ModelOverridePatch} patch
 * @returns {void}
 */
export function setProcessOverride(agentName, patch) {
  const nameProblem = agentNameProblem(agentName);
  if (nameProblem) throw new Error(`Cannot override ${JSON.stringify(agentName)}: ${nameProblem}.`);
  const overrides = currentOverrides();
  /** @type {ModelOverride} */
  const next = { ...overrides.get(agentName) };
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

/**
 * A copy of every in-memory override; changing it changes nothing.
 * @returns {Record<string, ModelOverride>}
 */
export function getProcessOverrides() {
  const copy = /** @type {Record<string, ModelOverride>} */ (Object.create(null));
  for (const [name, entry] of currentOverrides()) copy[name] = { ...entry };
  return copy;
}

/**
 * Removes one agent's in-memory override (a missing entry is fine).
 * @param {string} agentName
 * @returns {void}
 */
export function clearProcessOverride(agentName) {
  currentOverrides().delete(agentName);
}

/**
 * Empties the layer, as a process exit or /reload would. For tests.
 * @returns {void}
 */
export function resetProcessOverridesForTests() {
  currentOverrides().clear();
}

/**
 * The process layer in the same shape as the file layers.
 * @returns {ConfigLayer}
 */
export function processLayer() {
  const layer = emptyLayer("process");
  layer.entries = getProcessOverrides();
  return layer;
}
