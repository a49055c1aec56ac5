/**
 * The session's authority as it was at its start, read once when pi starts a session (pi's `session_start`:
 * start-up, /new, /resume, /fork, /reload, each the person's doing) and kept for the process: pi's trust decision,
 * the files pi guards, and the person's authority settings (`$toolCeiling`, `$projectAgents`, `$sandbox`,
 * `$sandboxHide`, `$askPerson`). A dispatch reads what was kept, never the folder or the user file as a child may
 * since have left them. Where nothing was kept (a pi that never announced its session start), the first dispatch
 * keeps what it finds, which is the safe side only when no child ran before it; pi always announces it.
 * What is kept at the start is the raw state (src/authority/start-snapshot.ts); it is made sense of here, at the
 * first dispatch, so that pi's start-up loads no config parser.
 */
import { dirname } from "node:path";
import { authoritySettingsOf, trustAtStart, trustFlagOf, type PiTrust } from "./trust.ts";
import { configLayerFromRead } from "../config/load.ts";
import {
  CODE_PI_ENTRIES,
  GUARDED_PI_ENTRIES,
  guardedChanges,
  listGuardedFiles,
  keptStarts,
  readTrustStoreText,
  realCwdOf,
  rememberStartSnapshot,
  startKey,
  takeStartSnapshot,
  type GuardedListing,
  type SessionStartInput,
  type StartSnapshot,
} from "./start-snapshot.ts";

export type { SessionStartInput } from "./start-snapshot.ts";

export interface SessionStart {
  cwd: string;
  trust: PiTrust;
  /** The files pi guards, as they were. */
  guarded: GuardedListing;
  /** The user file's authority settings, as they were. */
  userAuthority: Readonly<Record<string, unknown>>;
}

/** The decision of a trust store's text for `realCwd` or its nearest parent, as pi reads `<agent dir>/trust.json`. */
function trustDecisionIn(text: string | undefined, realCwd: string): boolean | null {
  if (text === undefined) return null;
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return null;
  const record = data as Record<string, unknown>;
  let current = realCwd;
  while (true) {
    const value = record[current];
    if (value === true || value === false) return value;
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** The trust store's decision for `cwd` or its nearest parent, as it is on the disk now. */
export function savedTrustDecision(agentDir: string, cwd: string): boolean | null {
  return trustDecisionIn(readTrustStoreText(agentDir), realCwdOf(cwd));
}

/** What a snapshot taken at the start says: the same answer as deciding then, since only the start's state is read. */
function interpretStartSnapshot(snapshot: StartSnapshot): SessionStart {
  const saved =
    snapshot.trustStore === undefined ? null : trustDecisionIn(snapshot.trustStore.text, snapshot.trustStore.realCwd);
  const trust = trustAtStart({
    piTrusted: snapshot.piTrusted,
    flag: trustFlagOf(snapshot.argv),
    saved,
    guarded: snapshot.guarded.size > 0,
  });
  const userAuthority = authoritySettingsOf(
    configLayerFromRead(snapshot.userFile.read, snapshot.userFile.path, "user"),
  );
  return { cwd: snapshot.cwd, trust, guarded: snapshot.guarded, userAuthority };
}

/** The session's authority as the disk says now (tests; and what a start that was never announced keeps). */
export function captureSessionStart(input: SessionStartInput): SessionStart {
  return interpretStartSnapshot(takeStartSnapshot(input));
}

/** Each snapshot is made sense of once per load of this module (a reload makes sense of it again, alike). */
const interpreted = new WeakMap<StartSnapshot, SessionStart>();

/** What the session's start kept (kept now, at first use, when pi never announced it). */
export function sessionStart(input: SessionStartInput): SessionStart {
  const snapshot = keptStarts().get(startKey(input)) ?? rememberStartSnapshot(input);
  let start = interpreted.get(snapshot);
  if (start === undefined) {
    start = interpretStartSnapshot(snapshot);
    interpreted.set(snapshot, start);
  }
  return start;
}

/** The guarded files that appeared or changed since the session's start (empty: none). */
export function guardedSinceStart(start: SessionStart, home: string): string[] {
  const entries = start.trust.kind === "no-trust-system" ? CODE_PI_ENTRIES : GUARDED_PI_ENTRIES;
  return guardedChanges(start.guarded, listGuardedFiles(start.cwd, home, entries));
}

/** For tests: forgets every kept start. */
export function resetSessionStartsForTests(): void {
  keptStarts().clear();
}
