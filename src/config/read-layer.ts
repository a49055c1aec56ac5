/**
 * Reading one subagent-isolation.json file into a config layer. The parsing is pure (`parseConfigLayer`); the
 * file read is a thin wrapper. Nothing here throws: a bad file becomes warnings and an emptier layer.
 *
 * File shape: `{ "$models": [...], "<agent>": "provider/model" | { "model"?: ..., "thinking"?: ... } }`.
 * `$`-prefixed keys are the file's own settings, never agents.
 */
import { isReservedObjectKey } from "../agents/names.ts";
import { quoteForMessage } from "../agents/parse.ts";
import { WARNING_PREFIX } from "../agents/warnings.ts";
import { readRegularFileSync } from "../shared/read-regular-file.ts";
import type { RegularFileRead } from "../shared/read-regular-file.ts";
import { CONFIG_FILE_MAX_BYTES } from "../shared/config-paths.ts";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.ts";
import type { ConfigLayer, ModelOverride } from "./types.ts";
import { MAX_IN_FLIGHT_KEY, MAX_PER_TURN_KEY, readFanOutSetting } from "../budget/fan-out-limits.ts";
import { BUDGET_KEYS, budgetValue, budgetValueProblem } from "../budget/limits.ts";
import { isSandboxLevel } from "../sandbox/levels.ts";
import { sandboxValueProblem, UNKNOWN_LEVEL_READ_ONLY } from "../sandbox/texts.ts";

export const MODELS_KEY = "$models";

export type FileLayerName = "user" | "project";

/** A layer with nothing in it. Entries have no prototype, so no agent name can reach Object.prototype. */
export function emptyLayer(name: ConfigLayer["name"], filePath?: string): ConfigLayer {
  const layer: ConfigLayer = { name, entries: (Object.create(null) as Record<string, ModelOverride>), warnings: [] };
  if (filePath !== undefined) layer.filePath = filePath;
  return layer;
}

/** `$models` cleaning: strings only, trimmed, blanks dropped, duplicates removed (the first one stays). */
export function cleanModelList(raw: readonly unknown[]): string[] {
  const cleaned = raw.filter((((item) => typeof item === "string") as (item: unknown) => item is string)).map((item) => item.trim());
  return [...new Set(cleaned.filter((item) => item !== ""))];
}

/** `ignored`: Values inside the entry that were invalid and dropped; the rest of the entry still counts. */
export type ParsedOverrideEntry = { ok: true, entry: ModelOverride, ignored: string[], sandboxProblem?: string } | { ok: false, reason: string };

/** One entry's value, or the reason the whole entry is ignored. */
export function parseOverrideEntry(value: unknown): ParsedOverrideEntry {
  if (typeof value === "string") {
    const model = value.trim();
    return model === "" ? { ok: false, reason: "the model must be a non-empty string" } : { ok: true, entry: { model }, ignored: [] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, reason: 'an entry must be a model string or an object with "model" and/or "thinking"' };
  }
  const record = (value as Record<string, unknown>);
  const entry: ModelOverride = {};
  const problems: string[] = [];
  const model = record["model"];
  if (typeof model === "string" && model.trim() !== "") entry.model = model.trim();
  else if (model !== undefined && model !== null) problems.push('"model" must be a non-empty string');
  const thinking = record["thinking"];
  if (isThinkingLevel(thinking)) entry.thinking = thinking;
  else if (thinking !== undefined && thinking !== null) {
    problems.push(`"thinking" must be one of ${THINKING_LEVELS.join(", ")} (got ${quoteForMessage(thinking)})`);
  }
  for (const key of BUDGET_KEYS) {
    const raw = record[key];
    if (raw === undefined || raw === null) continue;
    const limit = typeof raw === "number" ? budgetValue(key, raw) : undefined;
    if (limit === undefined) problems.push(`${budgetValueProblem(key, typeof raw === "number" ? raw : NaN)} (got ${quoteForMessage(typeof raw === "string" ? raw : JSON.stringify(raw))})`);
    else entry[key] = limit;
  }
  const sandbox = record["sandbox"];
  let sandboxProblem: string | undefined;
  if (isSandboxLevel(sandbox)) entry.sandbox = sandbox;
  else if (sandbox !== undefined && sandbox !== null) {
    // A mistyped level asked for a sandbox: the strictest one, never none.
    entry.sandbox = "read-only";
    sandboxProblem = `${sandboxValueProblem(sandbox)}; ${UNKNOWN_LEVEL_READ_ONLY}`;
  }
  if (entry.model === undefined && entry.thinking === undefined && entry.sandbox === undefined && !BUDGET_KEYS.some((key) => entry[key] !== undefined)) {
    problems.push('the entry sets neither "model" nor "thinking" nor a budget nor "sandbox"');
    return { ok: false, reason: problems.join("; ") };
  }
  // A partly valid entry keeps its valid fields; each shadows as its kind does (model and thinking by whole key, a budget per field).
  return { ok: true, entry, ignored: problems, ...(sandboxProblem ? { sandboxProblem } : {}) };
}

export function parseConfigLayer(text: string, name: FileLayerName, filePath?: string): ConfigLayer {
  const layer = emptyLayer(name, filePath);
  const where = `${WARNING_PREFIX}${filePath ?? `${name} subagent-isolation.json`}`;
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    layer.warnings.push(`${where}: invalid JSON (${message}); the whole file is ignored`);
    return layer;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    layer.warnings.push(`${where}: the file must contain a JSON object; the whole file is ignored`);
    return layer;
  }
  const record = (data as Record<string, unknown>);
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (key === MODELS_KEY) {
      if (Array.isArray(value)) layer.models = cleanModelList(value);
      else layer.warnings.push(`${where}: "${MODELS_KEY}" must be an array of model ids; ignored`);
      continue;
    }
    if (key === MAX_PER_TURN_KEY || key === MAX_IN_FLIGHT_KEY) {
      const problems: string[] = [];
      readFanOutSetting(key, value, (layer.fanOut ??= {}), problems);
      for (const problem of problems) layer.warnings.push(`${where}: ${problem}`);
      continue;
    }
    if (key.startsWith("$")) {
      (layer.settings ??= (Object.create(null) as Record<string, unknown>))[key] = value;
      continue;
    }
    if (isReservedObjectKey(key)) {
      layer.warnings.push(`${where}: ${quoteForMessage(key)} is a reserved name, not an agent; ignored`);
      continue;
    }
    const parsed = parseOverrideEntry(value);
    if (!parsed.ok) {
      layer.warnings.push(`${where}: ${quoteForMessage(key)}: ${parsed.reason}; the entry is ignored`);
      continue;
    }
    layer.entries[key] = parsed.entry;
    if (parsed.ignored.length > 0) {
      layer.warnings.push(`${where}: ${quoteForMessage(key)}: ${parsed.ignored.join("; ")}; that value is ignored`);
    }
    if (parsed.sandboxProblem !== undefined) layer.warnings.push(`${where}: ${quoteForMessage(key)}: ${parsed.sandboxProblem}`);
  }
  return layer;
}

export { CONFIG_FILE_MAX_BYTES } from "../shared/config-paths.ts";

/**
 * Reads one file layer. A missing file (or no path) is an empty layer without warnings; anything that is not a
 * regular file of a sane size (a FIFO, a link to /dev/zero) is not read, with a warning naming it.
 */
export function readConfigLayer(filePath: string | undefined, name: FileLayerName): ConfigLayer {
  if (filePath === undefined) return emptyLayer(name);
  return configLayerFromRead(readRegularFileSync(filePath, CONFIG_FILE_MAX_BYTES), filePath, name);
}

/** The layer a read of `filePath` (made now or earlier, as at the session's start) gives: what readConfigLayer returns. */
export function configLayerFromRead(read: RegularFileRead, filePath: string, name: FileLayerName): ConfigLayer {
  if (!read.ok) {
    const layer = emptyLayer(name, filePath);
    if (read.kind === "refused") layer.warnings.push(`${WARNING_PREFIX}${printablePath(filePath)}: ${read.reason}; ignored`);
    else if (read.kind === "directory") layer.warnings.push(`${WARNING_PREFIX}${printablePath(filePath)}: cannot be read (EISDIR); ignored`);
    return layer;
  }
  return parseConfigLayer(read.text, name, filePath);
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Paths come from the disk; never let one send escape sequences to the terminal. */
function printablePath(path: string): string {
  return path.replace(CONTROL_CHARACTERS, "?");
}
