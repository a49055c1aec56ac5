// @ts-check
/**
 * Editing the `$models` list (the models offered by /subagent-config) in one subagent-isolation.json file.
 *
 * Add appends the id at the end, unless the cleaned list already has it (idempotent); a `$models` that is not
 * an array is replaced by a one-item list. Remove drops every entry equal to the id (after trimming); an id
 * that is not there changes nothing, and removing the last one leaves `"$models": []`, which still shadows the
 * user list from a project file. Every other key is written back as it was; an invalid-JSON file is refused.
 */
import { WriteBackError } from "../shared/write-back-error.js";
import { cleanModelList, MODELS_KEY } from "./read-layer.js";
import { applyJsonObjectEdit, editJsonObjectFile } from "./write-json-file.js";
/** @import { EditOutcome, JsonFileWriteOptions } from "./write-json-file.js" */
/** @import { JsonObject } from "./write-json-document.js" */

/** @typedef {{ action: "add", model: string } | { action: "remove", model: string }} ModelsListEdit */

/**
 * @param {unknown} model
 * @returns {string}
 */
function checkedModelId(model) {
  if (typeof model !== "string" || model.trim() === "") {
    throw new WriteBackError("invalid-value", "Not saved: the model must be a non-empty string (provider/model-id).");
  }
  return model.trim();
}

/**
 * @param {ModelsListEdit} edit
 * @returns {ModelsListEdit}
 */
function checkEdit(edit) {
  if (edit === null || typeof edit !== "object" || (edit.action !== "add" && edit.action !== "remove")) {
    throw new WriteBackError("invalid-value", 'Not saved: the list edit must be "add" or "remove".');
  }
  return { action: edit.action, model: checkedModelId(edit.model) };
}

/**
 * @param {ModelsListEdit} edit
 * @returns {(root: JsonObject) => boolean}
 */
function modelsListEdit(edit) {
  return (root) => {
    const current = root.get(MODELS_KEY);
    if (edit.action === "add") {
      if (!Array.isArray(current)) {
        root.set(MODELS_KEY, [edit.model]);
        return true;
      }
      if (cleanModelList(current).includes(edit.model)) return false;
      current.push(edit.model);
      return true;
    }
    if (!Array.isArray(current)) return false;
    const kept = current.filter((item) => !(typeof item === "string" && item.trim() === edit.model));
    if (kept.length === current.length) return false;
    root.set(MODELS_KEY, kept);
    return true;
  };
}

/**
 * The pure step (undefined text: no file yet). Throws WriteBackError for an invalid id or file.
 * @param {string | undefined} text
 * @param {ModelsListEdit} edit
 * @returns {EditOutcome}
 */
export function applyModelsListEdit(text, edit) {
  return applyJsonObjectEdit(text, modelsListEdit(checkEdit(edit)));
}

/**
 * Applies the edit to the file under its lock, atomically. A remove never creates the file.
 * @param {string} filePath
 * @param {ModelsListEdit} edit
 * @param {JsonFileWriteOptions} [options]
 * @returns {Promise<{ changed: boolean }>}
 */
export async function editModelsList(filePath, edit, options = {}) {
  const checked = checkEdit(edit);
  return editJsonObjectFile(filePath, modelsListEdit(checked), checked.action === "add", options);
}

/**
 * @param {string} filePath
 * @param {string} model
 * @param {JsonFileWriteOptions} [options]
 * @returns {Promise<{ changed: boolean }>}
 */
export function addAvailableModel(filePath, model, options) {
  return editModelsList(filePath, { action: "add", model }, options);
}

/**
 * @param {string} filePath
 * @param {string} model
 * @param {JsonFileWriteOptions} [options]
 * @returns {Promise<{ changed: boolean }>}
 */
export function removeAvailableModel(filePath, model, options) {
  return editModelsList(filePath, { action: "remove", model }, options);
}
