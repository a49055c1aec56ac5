/**
 * The thinking level pi starts a session with when nothing asks for one: `defaultThinkingLevel` of pi's own
 * `settings.json`, the project's (`<cwd>/.pi/settings.json`, only where pi trusts the project) over the user's
 * (`<agent dir>/settings.json`), else pi's built-in default, `medium`. A child given no `--thinking` gets this,
 * lowered to `off` by pi for a model without reasoning. Read for /subagent-config's labels only: an unreadable or
 * odd file counts as unset.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isThinkingLevel, type ThinkingLevel } from "../shared/thinking.ts";

/** pi's own default (`DEFAULT_THINKING_LEVEL` in both pis). */
export const PI_BUILTIN_THINKING: ThinkingLevel = "medium";
/** pi's settings files are small; anything larger is not read. */
const SETTINGS_MAX_BYTES = 1024 * 1024;

function settingsLevel(path: string): ThinkingLevel | undefined {
  try {
    const text = readFileSync(path, "utf8");
    if (text.length > SETTINGS_MAX_BYTES) return undefined;
    const parsed: unknown = JSON.parse(text);
    const level = parsed && typeof parsed === "object" ? (parsed as { defaultThinkingLevel?: unknown }).defaultThinkingLevel : undefined;
    return isThinkingLevel(level) ? level : undefined;
  } catch {
    return undefined;
  }
}

export function piDefaultThinking(options: { agentDir: string; cwd: string; projectTrusted: boolean }): ThinkingLevel {
  const project = options.projectTrusted ? settingsLevel(join(options.cwd, ".pi", "settings.json")) : undefined;
  return project ?? settingsLevel(join(options.agentDir, "settings.json")) ?? PI_BUILTIN_THINKING;
}

/** What a child gets: pi turns thinking off for a model without reasoning (and when it has no model at all). */
export function inheritedThinking(defaultLevel: ThinkingLevel, model: { reasoning?: boolean } | undefined): ThinkingLevel {
  return model?.reasoning ? defaultLevel : "off";
}
