/** Thinking levels as written in agent frontmatter and subagent-isolation.json (the spec's seven). */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** The levels pi 0.73.1's `--thinking` flag accepts (it has no `max`). */
const HOST_THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type HostThinkingLevel = (typeof HOST_THINKING_LEVELS)[number];

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

/**
 * The level passed to a child pi. `max` is valid in our config format but pi 0.73.1 rejects it, so it becomes
 * the strongest level the host accepts; the caller reports the mapping.
 */
export function toHostThinkingLevel(level: ThinkingLevel): HostThinkingLevel {
  return level === "max" ? "xhigh" : level;
}
