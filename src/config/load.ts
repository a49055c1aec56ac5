/**
 * The config layers: the user and project files read and checked, the `this process` layer, and the models pi knows.
 */
import { mcpEntryProblem } from "../shared/tool-patterns.ts";
import { MAX_IN_FLIGHT_KEY, MAX_PER_TURN_KEY, readFanOutSetting, type FanOutSettings } from "../budget/fan-out.ts";
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../shared/thinking.ts";
import { isSandboxLevel, sandboxValueProblem, UNKNOWN_LEVEL_READ_ONLY, type SandboxLevel } from "../sandbox/levels.ts";
import { isReservedObjectKey, quoteForMessage, agentNameProblem } from "../agents/parse.ts";
import { WARNING_PREFIX } from "../agents/warnings.ts";
import { readRegularFileSync, type RegularFileRead } from "../shared/safe-read.ts";
import { CONFIG_FILE_MAX_BYTES, projectConfigPath, userConfigPath } from "../shared/config-paths.ts";
import { BUDGET_KEYS, budgetValue, budgetValueProblem } from "../budget/limits.ts";
import { LOOP_GUARD_RULE, loopGuardValue } from "../budget/loop-setting.ts";
import type { ConfigLayers } from "./resolve.ts";
import { existsSync } from "node:fs";
import { agentDir as piAgentDir } from "../shared/this-process.ts";

/** One agent's entry in subagent-isolation.json (a plain string in the file means `{ model }`). */
export interface ModelOverride {
  model?: string;
  thinking?: ThinkingLevel;
  /** Budget limits for the agent's tasks (src/budget/limits.ts). */
  maxTurns?: number;
  maxTokens?: number;
  maxCost?: number;
  /** `loopGuard` (src/budget/loop-setting.ts); a project entry can only make it stricter. LOOP_GUARD_OFF: off. */
  loopGuard?: number;
  /** The agent's sandbox; a project entry can only make it stricter (src/config/resolve.ts). */
  sandbox?: SandboxLevel;
  /** `false`: the agent's final messages are not checked for being the deliverable (src/run/settle-checks.ts). */
  deliverableCheck?: boolean;
  /** The agent's MCP servers or `mcp__…` patterns: a user entry replaces the frontmatter's, a project entry only narrows. */
  mcp?: string[];
  /** Tools (names or `*` patterns) the agent's child never gets; every layer's add up. */
  disallowedTools?: string[];
}

/** Config file layers, lowest precedence first; `process` lives only in memory. */
type ConfigLayerName = "user" | "project" | "process";

export interface ConfigLayer {
  name: ConfigLayerName;
  /** The file behind the layer (absent for the process layer, and for a project layer with no `.pi/`). */
  filePath?: string;
  /** Per-agent entries that passed validation. */
  entries: Record<string, ModelOverride>;
  /** The cleaned `$models` list; undefined when the file has none (or it is not an array). */
  models?: string[];
  /** The fan-out caps the file sets (`$maxTasksPerTurn`, `$maxTasksInFlight`). */
  fanOut?: FanOutSettings;
  /** Problems found while reading (invalid JSON, invalid values); the layer still counts, minus the bad parts. */
  warnings: string[];
  /** The file's other `$` settings as written (`$maxDepth`, `$forkMaxChars`), read by whoever uses them. */
  settings?: Record<string, unknown>;
}

/**
 * Where an effective value came from. `call` is the tool call's own `model` or `thinking` (that task only);
 * `inherited` is the main agent's current model (model only).
 */
export type ValueSource = "call" | "process" | "project" | "user" | "frontmatter" | "inherited";

export interface ResolvedValue<T> {
  value?: T;
  /** Absent when no layer set a value (shown as `not set`). */
  source?: ValueSource;
}

export interface ResolvedModelConfig {
  model: ResolvedValue<string>;
  thinking: ResolvedValue<ThinkingLevel>;
}

/** The `$models` list in force and the layer it came from. */
export interface AvailableModels {
  models: string[];
  source?: "user" | "project";
}

export { CONFIG_FILE_MAX_BYTES } from "../shared/config-paths.ts";

/*
 * Reading one subagent-isolation.json file into a config layer. The parsing is pure (`parseConfigLayer`); the
 * file read is a thin wrapper. Nothing here throws: a bad file becomes warnings and an emptier layer.
 *
 * File shape: `{ "$models": [...], "<agent>": "provider/model" | { "model"?: ..., "thinking"?: ... } }`.
 * `$`-prefixed keys are the file's own settings, never agents.
 */
export const MODELS_KEY = "$models";

export type FileLayerName = "user" | "project";

/** A layer with nothing in it. Entries have no prototype, so no agent name can reach Object.prototype. */
export function emptyLayer(name: ConfigLayer["name"], filePath?: string): ConfigLayer {
  const layer: ConfigLayer = { name, entries: Object.create(null) as Record<string, ModelOverride>, warnings: [] };
  if (filePath !== undefined) layer.filePath = filePath;
  return layer;
}

/** `$models` cleaning: strings only, trimmed, blanks dropped, duplicates removed (the first one stays). */
export function cleanModelList(raw: readonly unknown[]): string[] {
  const cleaned = raw
    .filter(((item) => typeof item === "string") as (item: unknown) => item is string)
    .map((item) => item.trim());
  return [...new Set(cleaned.filter((item) => item !== ""))];
}

/** A list of strings, trimmed, blanks and duplicates dropped; absent when not given; `invalid` for anything else. */
function stringList(raw: unknown): string[] | undefined | "invalid" {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || !raw.every((item) => typeof item === "string")) return "invalid";
  return [...new Set((raw as string[]).map((item) => item.trim()).filter((item) => item !== ""))];
}

/** `ignored`: Values inside the entry that were invalid and dropped; the rest of the entry still counts. */
type ParsedOverrideEntry =
  | { ok: true; entry: ModelOverride; ignored: string[]; sandboxProblem?: string }
  | { ok: false; reason: string };

/** One entry's value, or the reason the whole entry is ignored. */
function parseOverrideEntry(value: unknown): ParsedOverrideEntry {
  if (typeof value === "string") {
    const model = value.trim();
    return model === ""
      ? { ok: false, reason: "the model must be a non-empty string" }
      : { ok: true, entry: { model }, ignored: [] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, reason: 'an entry must be a model string or an object with "model" and/or "thinking"' };
  }
  const record = value as Record<string, unknown>;
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
    if (limit === undefined)
      problems.push(
        `${budgetValueProblem(key, typeof raw === "number" ? raw : NaN)} (got ${quoteForMessage(typeof raw === "string" ? raw : JSON.stringify(raw))})`,
      );
    else entry[key] = limit;
  }
  const loopGuard = record["loopGuard"];
  if (loopGuard !== undefined && loopGuard !== null) {
    const value = typeof loopGuard === "string" ? undefined : loopGuardValue(loopGuard);
    if (value === undefined) problems.push(`${LOOP_GUARD_RULE} (got ${quoteForMessage(JSON.stringify(loopGuard))})`);
    else entry.loopGuard = value;
  }
  const sandbox = record["sandbox"];
  let sandboxProblem: string | undefined;
  if (isSandboxLevel(sandbox)) entry.sandbox = sandbox;
  else if (sandbox !== undefined && sandbox !== null) {
    // A mistyped level asked for a sandbox: the strictest one, never none.
    entry.sandbox = "read-only";
    sandboxProblem = `${sandboxValueProblem(sandbox)}; ${UNKNOWN_LEVEL_READ_ONLY}`;
  }
  const deliverableCheck = record["deliverableCheck"];
  if (typeof deliverableCheck === "boolean") entry.deliverableCheck = deliverableCheck;
  else if (deliverableCheck !== undefined && deliverableCheck !== null)
    problems.push(`"deliverableCheck" must be true or false (got ${quoteForMessage(deliverableCheck)})`);
  const mcp = stringList(record["mcp"]);
  if (mcp === "invalid") problems.push('"mcp" must be a list of MCP server names or mcp__ patterns');
  else if (mcp !== undefined) {
    const bad = mcp.filter((item) => mcpEntryProblem(item) !== undefined);
    for (const item of bad) problems.push(`"mcp" entry ${quoteForMessage(item)}: ${mcpEntryProblem(item)}`);
    entry.mcp = mcp.filter((item) => !bad.includes(item));
  }
  const disallowed = stringList(record["disallowedTools"]);
  if (disallowed === "invalid") problems.push('"disallowedTools" must be a list of tool names or patterns');
  else if (disallowed !== undefined && disallowed.length > 0) entry.disallowedTools = disallowed;
  if (
    entry.model === undefined &&
    entry.thinking === undefined &&
    entry.sandbox === undefined &&
    entry.loopGuard === undefined &&
    entry.deliverableCheck === undefined &&
    entry.mcp === undefined &&
    entry.disallowedTools === undefined &&
    !BUDGET_KEYS.some((key) => entry[key] !== undefined)
  ) {
    problems.push('the entry sets neither "model" nor "thinking" nor a budget nor "loopGuard" nor "sandbox"');
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
  const record = data as Record<string, unknown>;
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
      (layer.settings ??= Object.create(null) as Record<string, unknown>)[key] = value;
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
    if (parsed.sandboxProblem !== undefined)
      layer.warnings.push(`${where}: ${quoteForMessage(key)}: ${parsed.sandboxProblem}`);
  }
  return layer;
}

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
    if (read.kind === "refused")
      layer.warnings.push(`${WARNING_PREFIX}${printablePath(filePath)}: ${read.reason}; ignored`);
    else if (read.kind === "directory")
      layer.warnings.push(`${WARNING_PREFIX}${printablePath(filePath)}: cannot be read (EISDIR); ignored`);
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

/*
 * The process layer: per-agent model/thinking overrides that live only in this process's memory (the
 * `this process` write target). Never written to disk; gone when pi exits or loads the extension again (/reload;
 * on pi 1.x also /new, /resume and /fork): each load evaluates this module afresh, and the layer with it.
 */
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
  if (next.model === undefined && next.thinking === undefined && BUDGET_KEYS.every((key) => next[key] === undefined))
    overrides.delete(agentName);
  else overrides.set(agentName, next);
}

/** A copy of every in-memory override; changing it changes nothing. */
export function getProcessOverrides(): Record<string, ModelOverride> {
  const copy = Object.create(null) as Record<string, ModelOverride>;
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

/*
 * The `$models` list in force, pure: a project list (even an empty one) replaces the user list wholesale; a
 * missing or non-array project value falls back to the user list. Never a union.
 */
export function availableModels(layers: Pick<ConfigLayers, "user" | "project">): AvailableModels {
  if (layers.project?.models !== undefined) return { models: [...layers.project.models], source: "project" };
  if (layers.user?.models !== undefined) return { models: [...layers.user.models], source: "user" };
  return { models: [] };
}

/*
 * Reads every config layer for a working directory: the user file, the nearest project file and the process
 * memory. Cheap (two small files), so callers read it fresh on each dispatch and each /subagent-config step.
 */
/** `warnings`: Every problem found in the two files, ready to show (see reportWarningsOnce). */
export type LoadedConfig = Required<ConfigLayers> & {
  models: AvailableModels;
  warnings: string[];
  /** The project file that exists but was not read (an untrusted project). */
  projectSkipped?: string;
};

export interface LoadConfigOptions {
  cwd: string;
  agentDir?: string;
  /** Where the walk up from cwd stops (default: the home directory). */
  home?: string;
  /** False in a project pi does not trust: its file counts for nothing (the layer is empty, `skipped` names it). */
  project?: boolean;
}

export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const userPath = userConfigPath(options.agentDir ?? piAgentDir());
  let projectPath = projectConfigPath(options.cwd, options.home);
  // pi's agent dir may itself be a project's `.pi` folder; one file is then one layer (user), not two.
  if (projectPath === userPath) projectPath = undefined;
  const skipped =
    options.project === false && projectPath !== undefined && existsSync(projectPath) ? projectPath : undefined;
  if (options.project === false) projectPath = undefined;
  const user: ConfigLayer = readConfigLayer(userPath, "user");
  const project: ConfigLayer = readConfigLayer(projectPath, "project");
  const process = processLayer();
  return {
    ...(skipped ? { projectSkipped: skipped } : {}),
    user,
    project,
    process,
    models: availableModels({ user, project }),
    warnings: [...user.warnings, ...project.warnings],
  };
}
