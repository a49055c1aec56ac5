// @ts-check
/**
 * Writing one agent's model/thinking override into a subagent-isolation.json file (the `user` and `project`
 * write targets of /subagent-config; `this process` never reaches this file).
 *
 * Patch semantics, shared with the process layer: for each field a string sets it, `null` clears it and
 * `undefined` leaves it. Guarantees: every check runs before any I/O; other top-level keys and unknown fields
 * inside the entry survive; a legacy string entry becomes `{ "model": ... }` where it stands; an entry left
 * with neither `model` nor `thinking` nor a budget is removed as a whole key (it would otherwise still shadow lower layers
 * wholesale); clearing an entry that does not exist changes nothing and creates no file.
 */
import { agentNameProblem } from "../agents/names.js";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.js";
import { WriteBackError } from "../shared/write-back-error.js";
import { BUDGET_KEYS, budgetValueProblem } from "../budget/limits.js";
import { applyJsonObjectEdit, editJsonObjectFile } from "./write-json-file.js";
import { isJsonObject, JsonNumber } from "./write-json-document.js";
/** @import { EditOutcome, JsonFileWriteOptions } from "./write-json-file.js" */
/** @import { JsonObject, JsonValue } from "./write-json-document.js" */

/** @typedef {import("./process-overrides.js").ModelOverridePatch} ModelOverridePatch */

/** @type {Set<string>} */
const PATCH_KEYS = new Set(["model", "thinking", ...BUDGET_KEYS]);

/**
 * The patch with its values checked and trimmed.
 * @typedef {object} CheckedPatch
 * @property {string | null} [model]
 * @property {string | null} [thinking]
 * @property {number | null} [maxTurns]
 * @property {number | null} [maxTokens]
 * @property {number | null} [maxCost]
 */

/**
 * Checks the name and the patch; throws WriteBackError on the first problem. Does no I/O.
 * @param {string} agentName
 * @param {ModelOverridePatch} patch
 * @returns {CheckedPatch}
 */
export function checkModelOverridePatch(agentName, patch) {
  if (typeof agentName !== "string") throw new WriteBackError("invalid-agent-name", "Not saved: the agent name must be a string.");
  const nameProblem = agentNameProblem(agentName);
  if (nameProblem) throw new WriteBackError("invalid-agent-name", `Not saved: ${JSON.stringify(agentName)} cannot be an agent key (${nameProblem}).`);
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw new WriteBackError("invalid-value", "Not saved: the change must be an object with model and/or thinking.");
  }
  for (const key of Object.keys(patch)) {
    if (!PATCH_KEYS.has(key)) throw new WriteBackError("invalid-value", `Not saved: unknown field ${JSON.stringify(key)} (only model, thinking, maxTurns, maxTokens and maxCost can be written).`);
  }
  /** @type {CheckedPatch} */
  const checked = {};
  const { model, thinking } = /** @type {{ model?: unknown, thinking?: unknown }} */ (patch);
  if (model !== undefined) {
    if (model === null) checked.model = null;
    else if (typeof model === "string" && model.trim() !== "") checked.model = model.trim();
    else throw new WriteBackError("invalid-value", "Not saved: the model must be a non-empty string (provider/model-id).");
  }
  if (thinking !== undefined) {
    if (thinking === null) checked.thinking = null;
    else if (isThinkingLevel(thinking)) checked.thinking = thinking;
    else throw new WriteBackError("invalid-value", `Not saved: the thinking level must be one of ${THINKING_LEVELS.join(", ")} (got ${JSON.stringify(thinking)}).`);
  }
  for (const key of BUDGET_KEYS) {
    const value = /** @type {Record<string, unknown>} */ (patch)[key];
    if (value === undefined) continue;
    if (value === null) checked[key] = null;
    else if (typeof value === "number" && budgetValueProblem(key, value) === undefined) checked[key] = value;
    else throw new WriteBackError("invalid-value", `Not saved: ${budgetValueProblem(key, value) ?? `"${key}" is invalid`} (got ${JSON.stringify(value)}).`);
  }
  return checked;
}

const PATCHED_FIELDS = /** @type {const} */ (["model", "thinking", ...BUDGET_KEYS]);

/**
 * Whether the patch changes nothing at all.
 * @param {CheckedPatch} patch
 * @returns {boolean}
 */
function patchesNothing(patch) {
  return PATCHED_FIELDS.every((field) => patch[field] === undefined);
}

/**
 * Whether the patch sets at least one field (and so may have to create the file).
 * @param {CheckedPatch} patch
 * @returns {boolean}
 */
function setsSomething(patch) {
  return typeof patch.model === "string" || typeof patch.thinking === "string" || BUDGET_KEYS.some((key) => typeof patch[key] === "number");
}

/**
 * The edit of the top-level object for one agent's entry.
 * @param {string} agentName
 * @param {CheckedPatch} patch
 * @returns {(root: JsonObject) => boolean}
 */
function overrideEdit(agentName, patch) {
  return (root) => {
    if (patchesNothing(patch)) return false;
    const current = root.get(agentName);
    /** @type {JsonObject} */
    let entry;
    if (isJsonObject(current)) entry = new Map(current);
    else if (typeof current === "string" && current.trim() !== "") entry = new Map([["model", current]]);
    // Absent, or not a usable entry (a number, a list, an empty string): readers ignore it, so it is replaced.
    else entry = new Map();
    for (const field of PATCHED_FIELDS) {
      const value = patch[field];
      if (value === undefined) continue;
      if (value === null) entry.delete(field);
      // Numbers are kept as their JSON text, like the ones the file already has.
      else entry.set(field, typeof value === "number" ? new JsonNumber(String(value)) : value);
    }
    const hasModel = entry.has("model");
    const hasThinking = entry.has("thinking");
    // An entry that still holds a budget (maxTurns, maxTokens, maxCost) stays: it governs those limits.
    const hasBudget = BUDGET_KEYS.some((key) => entry.has(key));
    if (!hasModel && !hasThinking && !hasBudget) {
      if (current === undefined) return false;
      root.delete(agentName);
      return true;
    }
    root.set(agentName, entry);
    return !sameEntry(current, entry);
  };
}

/**
 * Same keys in the same order with the same values (unchanged values keep their identity in the copy).
 * @param {JsonValue | undefined} previous
 * @param {JsonObject} after
 * @returns {boolean}
 */
function sameEntry(previous, after) {
  if (!isJsonObject(previous)) return false;
  if (previous.size !== after.size) return false;
  const afterKeys = [...after.keys()];
  return [...previous.keys()].every((key, index) => key === afterKeys[index] && sameValue(previous.get(key), after.get(key)));
}

/**
 * Identity, or two JSON numbers of equal value (`1` and `1.0` are the same limit).
 * @param {JsonValue | undefined} a
 * @param {JsonValue | undefined} b
 * @returns {boolean}
 */
function sameValue(a, b) {
  return a === b || (a instanceof JsonNumber && b instanceof JsonNumber && Number(a.raw) === Number(b.raw));
}

/**
 * The pure step: the file's text (undefined when it does not exist) and a patch in, the new text or
 * "unchanged" out. Throws WriteBackError (nothing to write) for an invalid name, patch or file.
 * @param {string | undefined} text
 * @param {string} agentName
 * @param {ModelOverridePatch} patch
 * @returns {EditOutcome}
 */
export function applyModelOverridePatch(text, agentName, patch) {
  const checked = checkModelOverridePatch(agentName, patch);
  return applyJsonObjectEdit(text, overrideEdit(agentName, checked));
}

/**
 * Writes the patch into the file (created, with its folder, only when the patch sets something). Under the
 * file's lock, atomically. Resolves `{ changed }`; throws WriteBackError with the file untouched otherwise.
 * @param {string} filePath
 * @param {string} agentName
 * @param {ModelOverridePatch} patch
 * @param {JsonFileWriteOptions} [options]
 * @returns {Promise<{ changed: boolean }>}
 */
export async function writeModelOverride(filePath, agentName, patch, options = {}) {
  const checked = checkModelOverridePatch(agentName, patch);
  if (patchesNothing(checked)) return { changed: false };
  return editJsonObjectFile(filePath, overrideEdit(agentName, checked), setsSomething(checked), options);
}
