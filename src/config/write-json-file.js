// @ts-check
/**
 * The read-modify-write cycle shared by every subagent-isolation.json write: the pure step
 * (`applyJsonObjectEdit`: text in, new text or "unchanged" out, refusing invalid JSON and non-objects) and the
 * file adapter (`editJsonObjectFile`: lock, read, apply, atomic write).
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../shared/atomic-file.js";
import { withFileLock } from "../shared/file-lock.js";
import { WriteBackError } from "../shared/write-back-error.js";
import { isJsonObject, parseJsonDocument, stringifyJsonDocument } from "./write-json-document.js";
/** @import { AtomicWriteOptions } from "../shared/atomic-file.js" */
/** @import { FileLockOptions } from "../shared/file-lock.js" */
/** @import { JsonObject } from "./write-json-document.js" */

/**
 * Changes the file's top-level object in place; returns whether anything changed.
 * @typedef {(root: JsonObject) => boolean} JsonObjectEdit
 */

/** @typedef {{ changed: false } | { changed: true, text: string }} EditOutcome */

/**
 * Applies an edit to a file's text (`undefined`: the file does not exist, so the edit starts from `{}`).
 * Throws WriteBackError for invalid JSON or a top level that is not an object.
 * @param {string | undefined} text
 * @param {JsonObjectEdit} edit
 * @param {string} [fileLabel]
 * @returns {EditOutcome}
 */
export function applyJsonObjectEdit(text, edit, fileLabel = "the config file") {
  const parsed = parseJsonDocument(text ?? "");
  if (!parsed.ok) {
    throw new WriteBackError("invalid-json", `Not saved: ${fileLabel} is not valid JSON (${parsed.reason}). Fix or remove it first; it was left as it is.`);
  }
  if (!isJsonObject(parsed.root)) {
    throw new WriteBackError("not-an-object", `Not saved: ${fileLabel} does not contain a JSON object. Fix or remove it first; it was left as it is.`);
  }
  if (!edit(parsed.root)) return { changed: false };
  return { changed: true, text: stringifyJsonDocument(parsed.root, parsed.eol) };
}

/**
 * @typedef {object} JsonFileWriteOptions
 * @property {FileLockOptions} [lock]
 * @property {AtomicWriteOptions} [atomic]
 */

/**
 * @param {string} filePath
 * @returns {Promise<boolean>}
 */
async function fileExists(filePath) {
  try {
    await stat(filePath);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {string} filePath
 * @returns {Promise<string | undefined>}
 */
async function readIfPresent(filePath) {
  try {
    return await readFile(filePath, "utf8");
  } catch (error) {
    if (error && typeof error === "object" && "code" in error && error.code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Runs one locked read-modify-write on a JSON object file. `mayCreate` false (an edit that only removes
 * things) means a missing file stays missing: nothing, not even its folder or a lock file, is created.
 * @param {string} filePath
 * @param {JsonObjectEdit} edit
 * @param {boolean} mayCreate
 * @param {JsonFileWriteOptions} [options]
 * @returns {Promise<{ changed: boolean }>}
 */
export async function editJsonObjectFile(filePath, edit, mayCreate, options = {}) {
  if (!mayCreate && !(await fileExists(filePath))) return { changed: false };
  await mkdir(dirname(filePath), { recursive: true });
  return withFileLock(
    filePath,
    async () => {
      const outcome = applyJsonObjectEdit(await readIfPresent(filePath), edit, filePath);
      if (!outcome.changed) return { changed: false };
      await writeFileAtomic(filePath, outcome.text, options.atomic);
      return { changed: true };
    },
    options.lock,
  );
}
