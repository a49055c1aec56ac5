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
import { isSandboxLevel, SANDBOX_LEVELS } from "../sandbox/levels.ts";
import type { SandboxLevel } from "../sandbox/levels.ts";
import { agentNameProblem } from "../agents/names.ts";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.ts";
import { WriteBackError } from "../shared/write-back-error.ts";
import { BUDGET_KEYS, budgetValueProblem } from "../budget/limits.ts";
import { applyJsonObjectEdit, editJsonObjectFile } from "./write-json-file.ts";
import { isJsonObject, JsonNumber } from "./write-json-document.ts";
import type { EditOutcome, JsonFileWriteOptions } from "./write-json-file.ts";
import type { JsonObject, JsonValue } from "./write-json-document.ts";

import type { ModelOverridePatch } from "./process-overrides.ts";

const PATCH_KEYS: Set<string> = new Set(["model", "thinking", ...BUDGET_KEYS, "sandbox"]);

/** The patch with its values checked and trimmed. */
export interface CheckedPatch {
  model?: string | null;
  thinking?: string | null;
  maxTurns?: number | null;
  maxTokens?: number | null;
  maxCost?: number | null;
  sandbox?: SandboxLevel | null;
}

/** Checks the name and the patch; throws WriteBackError on the first problem. Does no I/O. */
export function checkModelOverridePatch(agentName: string, patch: ModelOverridePatch): CheckedPatch {
  if (typeof agentName !== "string") throw new WriteBackError("invalid-agent-name", "Not saved: the agent name must be a string.");
  const nameProblem = agentNameProblem(agentName);
  if (nameProblem) throw new WriteBackError("invalid-agent-name", `Not saved: ${JSON.stringify(agentName)} cannot be an agent key (${nameProblem}).`);
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw new WriteBackError("invalid-value", "Not saved: the change must be an object with model and/or thinking.");
  }
  for (const key of Object.keys(patch)) {
    if (!PATCH_KEYS.has(key)) throw new WriteBackError("invalid-value", `Not saved: unknown field ${JSON.stringify(key)} (only model, thinking, maxTurns, maxTokens, maxCost and sandbox can be written).`);
  }
  const checked: CheckedPatch = {};
  const { model, thinking } = (patch as { model?: unknown, thinking?: unknown });
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
    const value = (patch as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (value === null) checked[key] = null;
    else if (typeof value === "number" && budgetValueProblem(key, value) === undefined) checked[key] = value;
    else throw new WriteBackError("invalid-value", `Not saved: ${budgetValueProblem(key, value) ?? `"${key}" is invalid`} (got ${JSON.stringify(value)}).`);
  }
  const sandbox = (patch as { sandbox?: unknown }).sandbox;
  if (sandbox !== undefined) {
    if (sandbox === null) checked.sandbox = null;
    else if (isSandboxLevel(sandbox)) checked.sandbox = sandbox;
    else throw new WriteBackError("invalid-value", `Not saved: the sandbox must be one of ${SANDBOX_LEVELS.join(", ")} (got ${JSON.stringify(sandbox)}).`);
  }
  return checked;
}

const PATCHED_FIELDS = (["model", "thinking", ...BUDGET_KEYS, "sandbox"] as const);

/** Whether the patch changes nothing at all. */
function patchesNothing(patch: CheckedPatch): boolean {
  return PATCHED_FIELDS.every((field) => patch[field] === undefined);
}

/** Whether the patch sets at least one field (and so may have to create the file). */
function setsSomething(patch: CheckedPatch): boolean {
  return typeof patch.model === "string" || typeof patch.thinking === "string" || typeof patch.sandbox === "string" || BUDGET_KEYS.some((key) => typeof patch[key] === "number");
}

/** The edit of the top-level object for one agent's entry. */
function overrideEdit(agentName: string, patch: CheckedPatch): (root: JsonObject) => boolean {
  return (root) => {
    if (patchesNothing(patch)) return false;
    const current = root.get(agentName);
    let entry: JsonObject;
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
    // So does one with a sandbox: removing it would silently lift the person's sandbox.
    if (!hasModel && !hasThinking && !hasBudget && !entry.has("sandbox")) {
      if (current === undefined) return false;
      root.delete(agentName);
      return true;
    }
    root.set(agentName, entry);
    return !sameEntry(current, entry);
  };
}

/** Same keys in the same order with the same values (unchanged values keep their identity in the copy). */
function sameEntry(previous: JsonValue | undefined, after: JsonObject): boolean {
  if (!isJsonObject(previous)) return false;
  if (previous.size !== after.size) return false;
  const afterKeys = [...after.keys()];
  return [...previous.keys()].every((key, index) => key === afterKeys[index] && sameValue(previous.get(key), after.get(key)));
}

/** Identity, or two JSON numbers of equal value (`1` and `1.0` are the same limit). */
function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === b || (a instanceof JsonNumber && b instanceof JsonNumber && Number(a.raw) === Number(b.raw));
}

/**
 * The pure step: the file's text (undefined when it does not exist) and a patch in, the new text or
 * "unchanged" out. Throws WriteBackError (nothing to write) for an invalid name, patch or file.
 */
export function applyModelOverridePatch(text: string | undefined, agentName: string, patch: ModelOverridePatch): EditOutcome {
  const checked = checkModelOverridePatch(agentName, patch);
  return applyJsonObjectEdit(text, overrideEdit(agentName, checked));
}

/**
 * Writes the patch into the file (created, with its folder, only when the patch sets something). Under the
 * file's lock, atomically. Resolves `{ changed }`; throws WriteBackError with the file untouched otherwise.
 */
export async function writeModelOverride(filePath: string, agentName: string, patch: ModelOverridePatch, options: JsonFileWriteOptions = {}): Promise<{ changed: boolean }> {
  const checked = checkModelOverridePatch(agentName, patch);
  if (patchesNothing(checked)) return { changed: false };
  return editJsonObjectFile(filePath, overrideEdit(agentName, checked), setsSomething(checked), options);
}
