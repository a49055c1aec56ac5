/**
 * Editing the `$models` list (the models offered by /subagent-config) in one subagent-isolation.json file.
 *
 * Add appends the id at the end, unless the cleaned list already has it (idempotent); a `$models` that is not
 * an array is replaced by a one-item list. Remove drops every entry equal to the id (after trimming); an id
 * that is not there changes nothing, and removing the last one leaves `"$models": []`, which still shadows the
 * user list from a project file. Every other key is written back as it was; an invalid-JSON file is refused.
 */
import { WriteBackError } from "../shared/write-back-error.ts";
import { cleanModelList, MODELS_KEY } from "./read-layer.ts";
import { applyJsonObjectEdit, editJsonObjectFile } from "./write-json-file.ts";
import type { EditOutcome, JsonFileWriteOptions } from "./write-json-file.ts";
import type { JsonObject } from "./write-json-document.ts";

export type ModelsListEdit = { action: "add", model: string } | { action: "remove", model: string };

function checkedModelId(model: unknown): string {
  if (typeof model !== "string" || model.trim() === "") {
    throw new WriteBackError("invalid-value", "Not saved: the model must be a non-empty string (provider/model-id).");
  }
  return model.trim();
}

function checkEdit(edit: ModelsListEdit): ModelsListEdit {
  if (edit === null || typeof edit !== "object" || (edit.action !== "add" && edit.action !== "remove")) {
    throw new WriteBackError("invalid-value", 'Not saved: the list edit must be "add" or "remove".');
  }
  return { action: edit.action, model: checkedModelId(edit.model) };
}

function modelsListEdit(edit: ModelsListEdit): (root: JsonObject) => boolean {
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

/** The pure step (undefined text: no file yet). Throws WriteBackError for an invalid id or file. */
export function applyModelsListEdit(text: string | undefined, edit: ModelsListEdit): EditOutcome {
  return applyJsonObjectEdit(text, modelsListEdit(checkEdit(edit)));
}

/** Applies the edit to the file under its lock, atomically. A remove never creates the file. */
export async function editModelsList(filePath: string, edit: ModelsListEdit, options: JsonFileWriteOptions = {}): Promise<{ changed: boolean }> {
  const checked = checkEdit(edit);
  return editJsonObjectFile(filePath, modelsListEdit(checked), checked.action === "add", options);
}

export function addAvailableModel(filePath: string, model: string, options?: JsonFileWriteOptions): Promise<{ changed: boolean }> {
  return editModelsList(filePath, { action: "add", model }, options);
}

export function removeAvailableModel(filePath: string, model: string, options?: JsonFileWriteOptions): Promise<{ changed: boolean }> {
  return editModelsList(filePath, { action: "remove", model }, options);
}
