// @ts-check
/**
 * Environment variables that carry the subagent nesting across processes. Plain JavaScript with JSDoc types (on
 * pi's start-up path: see "Modules Node loads itself" in ADVANCED.md).
 */
export const DEPTH_ENV = "PI_SUBAGENT_DEPTH";
export const AGENT_NAME_ENV = "PI_CURRENT_AGENT_NAME";

/**
 * The nesting depth of this process: 0 for the main agent; a missing or non-numeric value counts as 0.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {number}
 */
export function readSubagentDepth(env = process.env) {
  const raw = env[DEPTH_ENV];
  if (raw === undefined || raw.trim() === "") return 0;
  const depth = Number(raw);
  return Number.isFinite(depth) && depth > 0 ? Math.floor(depth) : 0;
}

/**
 * A subagent (depth >= 1) may neither dispatch nor cancel subagents, nor see the roster.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {boolean}
 */
export function isInsideSubagent(env = process.env) {
  return readSubagentDepth(env) >= 1;
}

/**
 * Bounded nesting. `PI_SUBAGENT_MAX_DEPTH` is how deep the tree of subagents may go: 1 (the default) lets only
 * the main agent dispatch; 2 lets its children dispatch too (their children cannot), and so on. A parent writes
 * the limit it resolved (environment, then config `$maxDepth`) into each child's environment, so the whole tree
 * runs under the root's limit and a child never reads the config to know it.
 */
export const MAX_DEPTH_ENV = "PI_SUBAGENT_MAX_DEPTH";
export const DEFAULT_MAX_DEPTH = 1;
/** The deepest tree allowed, whatever is asked: each level is a pi process and a model bill. */
export const MAX_DEPTH_CAP = 5;

/**
 * A max-depth value as written (env or config), or undefined when it is not a whole number from 1 to the cap.
 * @param {unknown} raw
 * @returns {number | undefined}
 */
export function parseMaxDepth(raw) {
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : typeof raw === "number" ? raw : Number.NaN;
  return Number.isInteger(value) && value >= 1 && value <= MAX_DEPTH_CAP ? value : undefined;
}

/**
 * The limit set in the environment, if it is valid (invalid values are reported by the dispatch path).
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {number | undefined}
 */
export function readMaxDepthEnv(env = process.env) {
  return parseMaxDepth(env[MAX_DEPTH_ENV]);
}

/**
 * Whether this process may dispatch subagents (and so gets the roster). The environment alone decides: the
 * main agent always may; a child may when its parent passed a limit deeper than the child's own depth.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {boolean}
 */
export function mayDispatchSubagents(env = process.env) {
  const depth = readSubagentDepth(env);
  return depth < (readMaxDepthEnv(env) ?? DEFAULT_MAX_DEPTH);
}
