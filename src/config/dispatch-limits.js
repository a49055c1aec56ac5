// @ts-check
/**
 * The two dispatch limits that live beside the model settings: how deep subagents may nest (`$maxDepth`) and how
 * large a forked conversation may be (`$forkMaxChars`). Each is read from the environment first, then the
 * project file, then the user file, then the default. Pure: the caller passes the environment and the layers.
 */
import { DEFAULT_MAX_DEPTH, MAX_DEPTH_CAP, MAX_DEPTH_ENV, parseMaxDepth } from "../shared/depth.js";
/** @import { ConfigLayer } from "./types.ts" */

export const MAX_DEPTH_KEY = "$maxDepth";
export const FORK_MAX_CHARS_KEY = "$forkMaxChars";
export const FORK_MAX_CHARS_ENV = "PI_SUBAGENT_FORK_MAX_CHARS";
/** About 100k tokens of conversation: room for a long session, well below where a fork stops being useful. */
export const DEFAULT_FORK_MAX_CHARS = 400_000;

/**
 * @typedef {object} DispatchLimit
 * @property {number} value
 * @property {"env" | "project" | "user" | "default"} source Where it came from: `env`, `project`, `user` or `default`.
 */

/**
 * @typedef {object} DispatchLimits
 * @property {DispatchLimit} maxDepth
 * @property {DispatchLimit} forkMaxChars
 * @property {string[]} warnings Values that were set but invalid, and so ignored (shown once, like other config warnings).
 */

/** @typedef {{ user: Pick<ConfigLayer, "settings" | "filePath">; project: Pick<ConfigLayer, "settings" | "filePath"> }} FileLayers */

/**
 * @param {unknown} raw
 * @returns {number | undefined}
 */
function parseForkMaxChars(raw) {
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : typeof raw === "number" ? raw : Number.NaN;
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

/**
 * @param {string} envName
 * @param {string} key
 * @param {(raw: unknown) => number | undefined} parse
 * @param {number} fallback
 * @param {string} expected
 * @param {NodeJS.ProcessEnv} env
 * @param {FileLayers} layers
 * @param {string[]} warnings
 * @returns {DispatchLimit}
 */
function resolveLimit(envName, key, parse, fallback, expected, env, layers, warnings) {
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    const value = parse(fromEnv);
    if (value !== undefined) return { value, source: "env" };
    warnings.push(`pi-subagent-dispatch: ${envName}=${fromEnv.trim()} is not ${expected}; ignored`);
  }
  for (const name of /** @type {const} */ (["project", "user"])) {
    const layer = layers[name];
    const settings = layer.settings;
    if (!settings || !Object.hasOwn(settings, key)) continue;
    const value = parse(settings[key]);
    if (value !== undefined) return { value, source: name };
    warnings.push(`pi-subagent-dispatch: ${layer.filePath ?? `${name} subagent-isolation.json`}: "${key}" is not ${expected}; ignored`);
  }
  return { value: fallback, source: "default" };
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {FileLayers} layers
 * @returns {DispatchLimits}
 */
export function resolveDispatchLimits(env, layers) {
  /** @type {string[]} */
  const warnings = [];
  const maxDepth = resolveLimit(MAX_DEPTH_ENV, MAX_DEPTH_KEY, parseMaxDepth, DEFAULT_MAX_DEPTH, `a whole number from 1 to ${MAX_DEPTH_CAP}`, env, layers, warnings);
  const forkMaxChars = resolveLimit(FORK_MAX_CHARS_ENV, FORK_MAX_CHARS_KEY, parseForkMaxChars, DEFAULT_FORK_MAX_CHARS, "a whole number of characters (1 or more)", env, layers, warnings);
  return { maxDepth, forkMaxChars, warnings };
}
