/**
 * The three sandbox levels of a subagent and their order. A stricter level only ever replaces a looser one where
 * something other than the person's own user-level settings speaks (a project file, a call). Pure.
 */

/** `off` (no sandbox), `workspace-write` (the working folder writable), `read-only` (nothing of the person's writable). */
export type SandboxLevel = "off" | "workspace-write" | "read-only";

/** Where the level in force came from (src/config/resolve-sandbox.ts decides it). */
export type SandboxSource = "user" | "frontmatter" | "$sandbox" | "project" | "project $sandbox" | "call" | "default" | "resumed task";

export interface ResolvedSandbox {
  level: SandboxLevel;
  source: SandboxSource;
}

/** Loosest first. */
export const SANDBOX_LEVELS: readonly SandboxLevel[] = Object.freeze(["off", "workspace-write", "read-only"]);

export function isSandboxLevel(value: unknown): value is SandboxLevel {
  return typeof value === "string" && (SANDBOX_LEVELS as readonly string[]).includes(value);
}

/** The stricter of two levels. */
export function stricterLevel(a: SandboxLevel, b: SandboxLevel): SandboxLevel {
  return SANDBOX_LEVELS.indexOf(a) >= SANDBOX_LEVELS.indexOf(b) ? a : b;
}
