/**
 * The two dispatch limits that live beside the model settings: how deep subagents may nest (`$maxDepth`) and how
 * large a forked conversation may be (`$forkMaxChars`). Each is read from the environment first, then the
 * project file, then the user file, then the default. Pure: the caller passes the environment and the layers.
 */
import { DEFAULT_MAX_DEPTH, MAX_DEPTH_CAP, MAX_DEPTH_ENV, parseMaxDepth } from "../shared/depth.ts";
import type { ConfigLayer } from "./types.ts";

export const MAX_DEPTH_KEY = "$maxDepth";
export const FORK_MAX_CHARS_KEY = "$forkMaxChars";
export const FORK_MAX_CHARS_ENV = "PI_SUBAGENT_FORK_MAX_CHARS";
/** About 100k tokens of conversation: room for a long session, well below where a fork stops being useful. */
export const DEFAULT_FORK_MAX_CHARS = 400_000;

export interface DispatchLimit {
  value: number;
  /** Where it came from: `env`, `project`, `user` or `default`. */
  source: "env" | "project" | "user" | "default";
}

export interface DispatchLimits {
  maxDepth: DispatchLimit;
  forkMaxChars: DispatchLimit;
  /** Values that were set but invalid, and so ignored (shown once, like other config warnings). */
  warnings: string[];
}

export type FileLayers = { user: Pick<ConfigLayer, "settings" | "filePath">; project: Pick<ConfigLayer, "settings" | "filePath"> };

function parseForkMaxChars(raw: unknown): number | undefined {
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : typeof raw === "number" ? raw : Number.NaN;
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

function resolveLimit(envName: string, key: string, parse: (raw: unknown) => number | undefined, fallback: number, expected: string, env: NodeJS.ProcessEnv, layers: FileLayers, warnings: string[]): DispatchLimit {
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    const value = parse(fromEnv);
    if (value !== undefined) return { value, source: "env" };
    warnings.push(`pi-subagent-dispatch: ${envName}=${fromEnv.trim()} is not ${expected}; ignored`);
  }
  for (const name of (["project", "user"] as const)) {
    const layer = layers[name];
    const settings = layer.settings;
    if (!settings || !Object.hasOwn(settings, key)) continue;
    const value = parse(settings[key]);
    if (value !== undefined) return { value, source: name };
    warnings.push(`pi-subagent-dispatch: ${layer.filePath ?? `${name} subagent-isolation.json`}: "${key}" is not ${expected}; ignored`);
  }
  return { value: fallback, source: "default" };
}

export function resolveDispatchLimits(env: NodeJS.ProcessEnv, layers: FileLayers): DispatchLimits {
  const warnings: string[] = [];
  const maxDepth = resolveLimit(MAX_DEPTH_ENV, MAX_DEPTH_KEY, parseMaxDepth, DEFAULT_MAX_DEPTH, `a whole number from 1 to ${MAX_DEPTH_CAP}`, env, layers, warnings);
  const forkMaxChars = resolveLimit(FORK_MAX_CHARS_ENV, FORK_MAX_CHARS_KEY, parseForkMaxChars, DEFAULT_FORK_MAX_CHARS, "a whole number of characters (1 or more)", env, layers, warnings);
  return { maxDepth, forkMaxChars, warnings };
}
