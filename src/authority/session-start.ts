/**
 * Authority decided once, at the session's start: what pi's trust decision was then (and whether it was a
 * decision or only implied), which files pi guards existed then, and the person's authority settings as their
 * user file said then. Files that appear during the session (a child can write them) never change any of it:
 * a planted `.pi/extensions/x.ts` cannot turn an implied trust into an explicit one, and a `"$toolCeiling": "off"`
 * written by a session without bash does not give its next child bash. Pure.
 */
import type { ConfigLayer } from "../config/types.ts";
import type { PiTrust } from "./project-trust.ts";

/**
 * The user-file settings read once per session (the rest of the file, agents' models and budgets, is read at each
 * dispatch, since /subagent-config, the person's own editor, changes it during the session).
 */
export const AUTHORITY_SETTING_KEYS: readonly string[] = Object.freeze(["$toolCeiling", "$projectAgents", "$sandbox", "$sandboxHide", "$askPerson"]);

/** pi 1.x's state at the session's start, as read from its command line, its trust store and the folder. */
export interface TrustInputsAtStart {
  /** `ctx.isProjectTrusted()` at the start; undefined on pi 0.73.1 (no trust system). */
  piTrusted?: boolean;
  /** The last of `--approve` / `--no-approve` on pi's command line. */
  flag?: "--approve" | "--no-approve";
  /** The trust store's saved decision for the folder (or its nearest parent), as it was at the start. */
  saved: boolean | null;
  /** Whether the folder held anything pi guards at the start. */
  guarded: boolean;
}

/** The trust decision at the start: a decision (a flag, a saved answer, guarded files pi loaded) or only implied. */
export function trustAtStart(inputs: TrustInputsAtStart): PiTrust {
  if (inputs.piTrusted === undefined) return { kind: "no-trust-system" };
  if (!inputs.piTrusted) return { kind: "untrusted" };
  const explicit = inputs.flag === "--approve" || inputs.guarded || inputs.saved === true;
  return { kind: "trusted", explicit };
}

/** The last trust flag on a command line, as pi reads it. */
export function trustFlagOf(argv: readonly string[]): "--approve" | "--no-approve" | undefined {
  let flag: "--approve" | "--no-approve" | undefined;
  for (const arg of argv) if (arg === "--approve" || arg === "--no-approve") flag = arg;
  return flag;
}

/** The user layer with its authority settings as they were at the start (absent there: absent now). */
export function withAuthorityAtStart(current: ConfigLayer, atStart: Readonly<Record<string, unknown>> | undefined): ConfigLayer {
  if (atStart === undefined) return current;
  const settings: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(current.settings ?? {})) if (!AUTHORITY_SETTING_KEYS.includes(key)) settings[key] = value;
  for (const key of AUTHORITY_SETTING_KEYS) if (Object.hasOwn(atStart, key)) settings[key] = atStart[key];
  return { ...current, settings };
}

/** The authority settings of a user layer, to keep for the session. */
export function authoritySettingsOf(layer: Pick<ConfigLayer, "settings">): Record<string, unknown> {
  const kept: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of AUTHORITY_SETTING_KEYS) if (layer.settings && Object.hasOwn(layer.settings, key)) kept[key] = layer.settings[key];
  return kept;
}
