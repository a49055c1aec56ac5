/**
 * The session's authority as it was at its start, read once when pi starts a session (pi's `session_start`:
 * start-up, /new, /resume, /fork, /reload, each the person's doing) and kept for the process: pi's trust decision,
 * the files pi guards, and the person's authority settings (`$toolCeiling`, `$projectAgents`, `$sandbox`,
 * `$sandboxHide`, `$askPerson`). A dispatch reads what was kept, never the folder or the user file as a child may
 * since have left them. Where nothing was kept (a pi that never announced its session start), the first dispatch
 * keeps what it finds, which is the safe side only when no child ran before it; pi always announces it.
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { authoritySettingsOf, trustAtStart, trustFlagOf } from "../../core/authority/session-start.ts";
import type { PiTrust } from "../../core/authority/project-trust.ts";
import { readConfigLayer } from "../config/read-layer.ts";
import { userConfigPath } from "../config/paths.ts";
import { perProcess } from "../shared/per-process.ts";
import { CODE_PI_ENTRIES, GUARDED_PI_ENTRIES, guardedChanges, listGuardedFiles } from "./guarded-files.ts";
import type { GuardedListing } from "./guarded-files.ts";

export interface SessionStartInput {
  cwd: string;
  agentDir: string;
  home: string;
  argv: readonly string[];
  /** pi 1.x's `ctx.isProjectTrusted` (absent on pi 0.73.1). */
  isProjectTrusted?: () => boolean;
}

export interface SessionStart {
  cwd: string;
  trust: PiTrust;
  /** The files pi guards, as they were. */
  guarded: GuardedListing;
  /** The user file's authority settings, as they were. */
  userAuthority: Readonly<Record<string, unknown>>;
}

/** The trust store's decision for `cwd` or its nearest parent, as pi reads `<agent dir>/trust.json`. */
export function savedTrustDecision(agentDir: string, cwd: string): boolean | null {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8").replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return null;
  const record = data as Record<string, unknown>;
  let current: string;
  try {
    current = realpathSync(cwd);
  } catch {
    current = resolve(cwd);
  }
  while (true) {
    const value = record[current];
    if (value === true || value === false) return value;
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

function readPiTrusted(isProjectTrusted: (() => boolean) | undefined): boolean | undefined {
  if (typeof isProjectTrusted !== "function") return undefined;
  try {
    return isProjectTrusted();
  } catch {
    // A pi that cannot say is not trusted: the safe side.
    return false;
  }
}

export function captureSessionStart(input: SessionStartInput): SessionStart {
  const piTrusted = readPiTrusted(input.isProjectTrusted);
  const guarded = listGuardedFiles(input.cwd, input.home, piTrusted === undefined ? CODE_PI_ENTRIES : GUARDED_PI_ENTRIES);
  const trust = trustAtStart({ piTrusted, flag: trustFlagOf(input.argv), saved: piTrusted === undefined ? null : savedTrustDecision(input.agentDir, input.cwd), guarded: guarded.size > 0 });
  const userAuthority = authoritySettingsOf(readConfigLayer(userConfigPath(input.agentDir), "user"));
  return { cwd: input.cwd, trust, guarded, userAuthority };
}

function starts(): Map<string, SessionStart> {
  return perProcess("session-start", () => new Map<string, SessionStart>());
}

function keyOf(input: Pick<SessionStartInput, "cwd" | "agentDir">): string {
  return `${input.agentDir}\0${input.cwd}`;
}

/** At pi's `session_start`: keeps the state of now for this session (replacing an earlier session's). */
export function rememberSessionStart(input: SessionStartInput): SessionStart {
  const start = captureSessionStart(input);
  starts().set(keyOf(input), start);
  return start;
}

/** What the session's start kept (kept now, at first use, when pi never announced it). */
export function sessionStart(input: SessionStartInput): SessionStart {
  return starts().get(keyOf(input)) ?? rememberSessionStart(input);
}

/** The guarded files that appeared or changed since the session's start (empty: none). */
export function guardedSinceStart(start: SessionStart, home: string): string[] {
  const entries = start.trust.kind === "no-trust-system" ? CODE_PI_ENTRIES : GUARDED_PI_ENTRIES;
  return guardedChanges(start.guarded, listGuardedFiles(start.cwd, home, entries));
}

/** For tests: forgets every kept start. */
export function resetSessionStartsForTests(): void {
  starts().clear();
}
