/**
 * Writes to subagent-isolation.json: order-preserving JSON edits, the file written under its lock, a model override and the `$models` list.
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import {
  writeFileAtomic,
  withFileLock,
  WriteBackError,
  type AtomicWriteOptions,
  type FileLockOptions,
} from "../shared/safe-write.ts";
import { isSandboxLevel, SANDBOX_LEVELS, type SandboxLevel } from "../sandbox/levels.ts";
import { agentNameProblem } from "../agents/parse.ts";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.ts";
import { BUDGET_KEYS, budgetValueProblem } from "../budget/limits.ts";
import { cleanModelList, MODELS_KEY, type ModelOverridePatch } from "./load.ts";

/*
 * The write side's own view of a JSON file: parsed into an order-preserving tree, so that rewriting a file
 * keeps every key where it was (plain JS objects would move integer-like keys such as "42" to the front, and
 * would turn a `"__proto__"` key into a prototype change) and keeps every number exactly as written (a
 * 20-digit id would otherwise lose precision). Pure: text in, text out.
 *
 * Validity is decided by JSON.parse (same errors as every other reader); the ordered tree is then built by a
 * small scanner that may trust its input. Output is pretty-printed with two-space indentation and a final
 * line break, exactly like `JSON.stringify(value, null, 2)` for ordinary documents.
 * Not jsonc-parser 3.3.1's modify/applyEdits: in a file that repeats a key it edits the first occurrence while
 * JSON.parse (every reader) takes the last, so such a save would not take; its import also costs ~15 ms.
 */
/** A number kept as its source text. */
class JsonNumber {
  readonly raw: string;

  constructor(raw: string) {
    this.raw = raw;
  }
}

export type JsonObject = Map<string, JsonValue>;
/**
 * `JsonValue[]`, named so the recursive `JsonValue` reads plainly.
 */
type JsonArray = JsonValue[];
export type JsonValue = null | boolean | string | JsonNumber | JsonArray | JsonObject;

/** `eol` (when `ok`): the file's line break style, reused when it is written back. */
export type ParsedJsonDocument =
  | {
      ok: true;
      root: JsonValue;
      eol: "\n" | "\r\n";
    }
  | { ok: false; reason: string };

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value instanceof Map;
}

/**
 * Parses a document. A UTF-8 BOM is ignored. An empty (or whitespace-only) file is an empty object: it has no
 * content that a write could lose.
 */
export function parseJsonDocument(text: string): ParsedJsonDocument {
  const body = text.replace(/^\uFEFF/, "");
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  if (body.trim() === "") return { ok: true, root: new Map(), eol };
  try {
    JSON.parse(body);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, root: new OrderedScanner(body).document(), eol };
}

/** Builds the ordered tree from text JSON.parse has accepted. */
class OrderedScanner {
  private readonly text: string;

  private at = 0;

  constructor(text: string) {
    this.text = text;
  }

  document(): JsonValue {
    return this.value();
  }

  private skipSpace(): void {
    while (this.at < this.text.length && " \t\r\n".includes(this.text[this.at] ?? "")) this.at++;
  }

  private value(): JsonValue {
    this.skipSpace();
    const ch = this.text[this.at];
    if (ch === "{") return this.object();
    if (ch === "[") return this.array();
    if (ch === '"') return this.string();
    if (this.text.startsWith("true", this.at)) return this.literal("true", true);
    if (this.text.startsWith("false", this.at)) return this.literal("false", false);
    if (this.text.startsWith("null", this.at)) return this.literal("null", null);
    return this.number();
  }

  private literal<T extends JsonValue>(word: string, result: T): T {
    this.at += word.length;
    return result;
  }

  private number(): JsonNumber {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    const raw = match?.[0] ?? "";
    this.at += raw.length;
    return new JsonNumber(raw);
  }

  private string(): string {
    const start = this.at;
    this.at++; // opening quote
    while (this.text[this.at] !== '"') {
      if (this.text[this.at] === "\\") this.at++;
      this.at++;
    }
    this.at++; // closing quote
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private object(): JsonObject {
    const result: JsonObject = new Map();
    this.at++; // {
    this.skipSpace();
    if (this.text[this.at] === "}") {
      this.at++;
      return result;
    }
    for (;;) {
      this.skipSpace();
      const key = this.string();
      this.skipSpace();
      this.at++; // :
      // A repeated key keeps its first position and its last value, as JSON.parse does.
      result.set(key, this.value());
      this.skipSpace();
      if (this.text[this.at++] === "}") return result;
    }
  }

  private array(): JsonValue[] {
    const result: JsonValue[] = [];
    this.at++; // [
    this.skipSpace();
    if (this.text[this.at] === "]") {
      this.at++;
      return result;
    }
    for (;;) {
      result.push(this.value());
      this.skipSpace();
      if (this.text[this.at++] === "]") return result;
    }
  }
}

function stringifyValue(value: JsonValue, indent: string, eol: string): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof JsonNumber) return value.raw;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => `${inner}${stringifyValue(item, inner, eol)}`);
    return `[${eol}${items.join(`,${eol}`)}${eol}${indent}]`;
  }
  if (value.size === 0) return "{}";
  const members = [...value].map(
    ([key, item]) => `${inner}${JSON.stringify(key)}: ${stringifyValue(item, inner, eol)}`,
  );
  return `{${eol}${members.join(`,${eol}`)}${eol}${indent}}`;
}

/** Two-space pretty print with a final line break, using the given line break style. */
export function stringifyJsonDocument(root: JsonValue, eol: "\n" | "\r\n" = "\n"): string {
  return `${stringifyValue(root, "", eol)}${eol}`;
}

/*
 * The read-modify-write cycle shared by every subagent-isolation.json write: the pure step
 * (`applyJsonObjectEdit`: text in, new text or "unchanged" out, refusing invalid JSON and non-objects) and the
 * file adapter (`editJsonObjectFile`: lock, read, apply, atomic write).
 */
/** Changes the file's top-level object in place; returns whether anything changed. */
export type JsonObjectEdit = (root: JsonObject) => boolean;

export type EditOutcome = { changed: false } | { changed: true; text: string };

/**
 * Applies an edit to a file's text (`undefined`: the file does not exist, so the edit starts from `{}`).
 * Throws WriteBackError for invalid JSON or a top level that is not an object.
 */
function applyJsonObjectEdit(
  text: string | undefined,
  edit: JsonObjectEdit,
  fileLabel: string = "the config file",
): EditOutcome {
  const parsed = parseJsonDocument(text ?? "");
  if (!parsed.ok) {
    throw new WriteBackError(
      "invalid-json",
      `Not saved: ${fileLabel} is not valid JSON (${parsed.reason}). Fix or remove it first; it was left as it is.`,
    );
  }
  if (!isJsonObject(parsed.root)) {
    throw new WriteBackError(
      "not-an-object",
      `Not saved: ${fileLabel} does not contain a JSON object. Fix or remove it first; it was left as it is.`,
    );
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
export async function editJsonObjectFile(
  filePath: string,
  edit: JsonObjectEdit,
  mayCreate: boolean,
  options: JsonFileWriteOptions = {},
): Promise<{ changed: boolean }> {
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

/*
 * Writing one agent's model/thinking override into a subagent-isolation.json file (the `user` and `project`
 * write targets of /subagent-config; `this process` never reaches this file).
 *
 * Patch semantics, shared with the process layer: for each field a string sets it, `null` clears it and
 * `undefined` leaves it. Guarantees: every check runs before any I/O; other top-level keys and unknown fields
 * inside the entry survive; a legacy string entry becomes `{ "model": ... }` where it stands; an entry left
 * with neither `model` nor `thinking` nor a budget is removed as a whole key (it would otherwise still shadow lower layers
 * wholesale); clearing an entry that does not exist changes nothing and creates no file.
 */
const PATCH_KEYS: Set<string> = new Set(["model", "thinking", ...BUDGET_KEYS, "sandbox"]);

/** The patch with its values checked and trimmed. */
interface CheckedPatch {
  model?: string | null;
  thinking?: string | null;
  maxTurns?: number | null;
  maxTokens?: number | null;
  maxCost?: number | null;
  sandbox?: SandboxLevel | null;
}

/** Checks the name and the patch; throws WriteBackError on the first problem. Does no I/O. */
function checkModelOverridePatch(agentName: string, patch: ModelOverridePatch): CheckedPatch {
  if (typeof agentName !== "string")
    throw new WriteBackError("invalid-agent-name", "Not saved: the agent name must be a string.");
  const nameProblem = agentNameProblem(agentName);
  if (nameProblem)
    throw new WriteBackError(
      "invalid-agent-name",
      `Not saved: ${JSON.stringify(agentName)} cannot be an agent key (${nameProblem}).`,
    );
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw new WriteBackError("invalid-value", "Not saved: the change must be an object with model and/or thinking.");
  }
  for (const key of Object.keys(patch)) {
    if (!PATCH_KEYS.has(key))
      throw new WriteBackError(
        "invalid-value",
        `Not saved: unknown field ${JSON.stringify(key)} (only model, thinking, maxTurns, maxTokens, maxCost and sandbox can be written).`,
      );
  }
  const checked: CheckedPatch = {};
  const { model, thinking } = patch as { model?: unknown; thinking?: unknown };
  if (model !== undefined) {
    if (model === null) checked.model = null;
    else if (typeof model === "string" && model.trim() !== "") checked.model = model.trim();
    else
      throw new WriteBackError("invalid-value", "Not saved: the model must be a non-empty string (provider/model-id).");
  }
  if (thinking !== undefined) {
    if (thinking === null) checked.thinking = null;
    else if (isThinkingLevel(thinking)) checked.thinking = thinking;
    else
      throw new WriteBackError(
        "invalid-value",
        `Not saved: the thinking level must be one of ${THINKING_LEVELS.join(", ")} (got ${JSON.stringify(thinking)}).`,
      );
  }
  for (const key of BUDGET_KEYS) {
    const value = (patch as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (value === null) checked[key] = null;
    else if (typeof value === "number" && budgetValueProblem(key, value) === undefined) checked[key] = value;
    else
      throw new WriteBackError(
        "invalid-value",
        `Not saved: ${budgetValueProblem(key, value) ?? `"${key}" is invalid`} (got ${JSON.stringify(value)}).`,
      );
  }
  const sandbox = (patch as { sandbox?: unknown }).sandbox;
  if (sandbox !== undefined) {
    if (sandbox === null) checked.sandbox = null;
    else if (isSandboxLevel(sandbox)) checked.sandbox = sandbox;
    else
      throw new WriteBackError(
        "invalid-value",
        `Not saved: the sandbox must be one of ${SANDBOX_LEVELS.join(", ")} (got ${JSON.stringify(sandbox)}).`,
      );
  }
  return checked;
}

const PATCHED_FIELDS = ["model", "thinking", ...BUDGET_KEYS, "sandbox"] as const;

/** Whether the patch changes nothing at all. */
function patchesNothing(patch: CheckedPatch): boolean {
  return PATCHED_FIELDS.every((field) => patch[field] === undefined);
}

/** Whether the patch sets at least one field (and so may have to create the file). */
function setsSomething(patch: CheckedPatch): boolean {
  return (
    typeof patch.model === "string" ||
    typeof patch.thinking === "string" ||
    typeof patch.sandbox === "string" ||
    BUDGET_KEYS.some((key) => typeof patch[key] === "number")
  );
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
    // So does one with a sandbox or a loop guard: removing it would silently lift the person's setting.
    if (!hasModel && !hasThinking && !hasBudget && !entry.has("sandbox") && !entry.has("loopGuard")) {
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
  return [...previous.keys()].every(
    (key, index) => key === afterKeys[index] && sameValue(previous.get(key), after.get(key)),
  );
}

/** Identity, or two JSON numbers of equal value (`1` and `1.0` are the same limit). */
function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === b || (a instanceof JsonNumber && b instanceof JsonNumber && Number(a.raw) === Number(b.raw));
}

/**
 * The pure step: the file's text (undefined when it does not exist) and a patch in, the new text or
 * "unchanged" out. Throws WriteBackError (nothing to write) for an invalid name, patch or file.
 */
export function applyModelOverridePatch(
  text: string | undefined,
  agentName: string,
  patch: ModelOverridePatch,
): EditOutcome {
  const checked = checkModelOverridePatch(agentName, patch);
  return applyJsonObjectEdit(text, overrideEdit(agentName, checked));
}

/**
 * Writes the patch into the file (created, with its folder, only when the patch sets something). Under the
 * file's lock, atomically. Resolves `{ changed }`; throws WriteBackError with the file untouched otherwise.
 */
export async function writeModelOverride(
  filePath: string,
  agentName: string,
  patch: ModelOverridePatch,
  options: JsonFileWriteOptions = {},
): Promise<{ changed: boolean }> {
  const checked = checkModelOverridePatch(agentName, patch);
  if (patchesNothing(checked)) return { changed: false };
  return editJsonObjectFile(filePath, overrideEdit(agentName, checked), setsSomething(checked), options);
}

/*
 * Editing the `$models` list (the models offered by /subagent-config) in one subagent-isolation.json file.
 *
 * Add appends the id at the end, unless the cleaned list already has it (idempotent); a `$models` that is not
 * an array is replaced by a one-item list. Remove drops every entry equal to the id (after trimming); an id
 * that is not there changes nothing, and removing the last one leaves `"$models": []`, which still shadows the
 * user list from a project file. Every other key is written back as it was; an invalid-JSON file is refused.
 */
export type ModelsListEdit = { action: "add"; model: string } | { action: "remove"; model: string };

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
export async function editModelsList(
  filePath: string,
  edit: ModelsListEdit,
  options: JsonFileWriteOptions = {},
): Promise<{ changed: boolean }> {
  const checked = checkEdit(edit);
  return editJsonObjectFile(filePath, modelsListEdit(checked), checked.action === "add", options);
}

export function addAvailableModel(
  filePath: string,
  model: string,
  options?: JsonFileWriteOptions,
): Promise<{ changed: boolean }> {
  return editModelsList(filePath, { action: "add", model }, options);
}

export function removeAvailableModel(
  filePath: string,
  model: string,
  options?: JsonFileWriteOptions,
): Promise<{ changed: boolean }> {
  return editModelsList(filePath, { action: "remove", model }, options);
}
