// @ts-check
/** Thinking levels as written in agent frontmatter and subagent-isolation.json (the spec's seven). */
export const THINKING_LEVELS = /** @type {const} */ (["off", "minimal", "low", "medium", "high", "xhigh", "max"]);
/** @typedef {(typeof THINKING_LEVELS)[number]} ThinkingLevel */

/** The levels pi 0.73.1's `--thinking` flag accepts (it has no `max`). */
export const HOST_THINKING_LEVELS = /** @type {const} */ (["off", "minimal", "low", "medium", "high", "xhigh"]);
/** @typedef {(typeof HOST_THINKING_LEVELS)[number]} HostThinkingLevel */

/**
 * @param {unknown} value
 * @returns {value is ThinkingLevel}
 */
export function isThinkingLevel(value) {
  return typeof value === "string" && /** @type {readonly string[]} */ (THINKING_LEVELS).includes(value);
}

/**
 * The level passed to a child pi. `max` is valid in our config format but pi 0.73.1 rejects it, so it becomes
 * the strongest level the host accepts; the caller reports the mapping.
 * @param {ThinkingLevel} level
 * @returns {HostThinkingLevel}
 */
export function toHostThinkingLevel(level) {
  return level === "max" ? "xhigh" : level;
}
