/**
 * The read-modify-write cycle shared by every subagent-isolation.json write: the pure step
 * (`applyJsonObjectEdit`: text in, new text or "unchanged" out, refusing invalid JSON and non-objects) and the
 * file adapter (`editJsonObjectFile`: lock, read, apply, atomic write).
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../shared/atomic-file.ts";
import { withFileLock } from "../shared/file-lock.ts";
import { WriteBackError } from "../shared/write-back-error.ts";
import { isJsonObject, parseJsonDocument, stringifyJsonDocument } from "./write-json-document.ts";
import type { AtomicWriteOptions } from "../shared/atomic-file.ts";
import type { FileLockOptions } from "../shared/file-lock.ts";
import type { JsonObject } from "./write-json-document.ts";

/** Changes the file's top-level object in place; returns whether anything changed. */
export type JsonObjectEdit = (root: JsonObject) => boolean;

export type EditOutcome = { changed: false } | { changed: true, text: string };

/**
 * Applies an edit to a file's text (`undefined`: the file does not exist, so the edit starts from `{}`).
 * Throws WriteBackError for invalid JSON or a top level that is not an object.
 */
export function applyJsonObjectEdit(text: string | undefined, edit: JsonObjectEdit, fileLabel: string = "the config file"): EditOutcome {
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

export interface JsonFileWriteOptions {
  lock?: FileLockOptions;
  atomic?: AtomicWriteOptions;
}

async function fileExists(filePath: string): Promise<boolean> {
  try {
    await stat(filePath);
    return true;
  } catch {
    return false;
  }
}

async function readIfPresent(filePath: string): Promise<string | undefined> {
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
 */
export async function editJsonObjectFile(filePath: string, edit: JsonObjectEdit, mayCreate: boolean, options: JsonFileWriteOptions = {}): Promise<{ changed: boolean }> {
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
