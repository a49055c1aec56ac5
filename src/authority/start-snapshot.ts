/**
 * What the session's authority is decided from, taken at pi's `session_start` (src/start/register-session-start.ts)
 * as it is on the disk then, and left uninterpreted: pi 1.x's trust answer, the trust store's and the user file's
 * raw text, the working folder with links resolved, and the listing of the files pi guards. Reading them is a few
 * `stat`s and two small reads; making sense of them (the trust store's nearest decision, the user file's
 * settings) needs the config parser and is done at the first dispatch (src/authority/session-start-read.ts). That
 * keeps the parser off pi's start-up path while the decision still rests on the state at the start, before any
 * child could have written a file.
 */
import { readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { CONFIG_FILE_MAX_BYTES, userConfigPath } from "../shared/config-paths.ts";
import { perProcess } from "../shared/per-process.ts";
import { readRegularFileSync } from "../shared/read-regular-file.ts";
import type { RegularFileRead } from "../shared/read-regular-file.ts";
import { CODE_PI_ENTRIES, GUARDED_PI_ENTRIES, listGuardedFiles } from "./guarded-files.ts";
import type { GuardedListing } from "./guarded-files.ts";

export interface SessionStartInput {
  cwd: string;
  agentDir: string;
  home: string;
  argv: readonly string[];
  /** pi 1.x's `ctx.isProjectTrusted` (absent on pi 0.73.1). */
  isProjectTrusted?: () => boolean;
}

export interface StartSnapshot {
  cwd: string;
  argv: readonly string[];
  /** pi 1.x's answer at the start; undefined on pi 0.73.1, which has no trust system. */
  piTrusted: boolean | undefined;
  /** The files pi guards, as they were. */
  guarded: GuardedListing;
  /** pi 1.x only: `<agent dir>/trust.json` as it was (undefined: unreadable), and the folder it is looked up for. */
  trustStore?: { text: string | undefined; realCwd: string };
  /** The user file (`subagent-isolation.json`) as it was read then. */
  userFile: { path: string; read: RegularFileRead };
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

/** `cwd` with links resolved, as pi keys its trust store. */
export function realCwdOf(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return resolve(cwd);
  }
}

/** The trust store's text, or undefined when it cannot be read. */
export function readTrustStoreText(agentDir: string): string | undefined {
  try {
    return readFileSync(join(agentDir, "trust.json"), "utf8");
  } catch {
    return undefined;
  }
}

export function takeStartSnapshot(input: SessionStartInput): StartSnapshot {
  const piTrusted = readPiTrusted(input.isProjectTrusted);
  const guarded = listGuardedFiles(input.cwd, input.home, piTrusted === undefined ? CODE_PI_ENTRIES : GUARDED_PI_ENTRIES);
  const path = userConfigPath(input.agentDir);
  return {
    cwd: input.cwd,
    argv: [...input.argv],
    piTrusted,
    guarded,
    ...(piTrusted === undefined ? {} : { trustStore: { text: readTrustStoreText(input.agentDir), realCwd: realCwdOf(input.cwd) } }),
    userFile: { path, read: readRegularFileSync(path, CONFIG_FILE_MAX_BYTES) },
  };
}

/** The kept starts of this process, by agent dir and working folder (the runtime is a later load of the modules). */
export function keptStarts(): Map<string, StartSnapshot> {
  return perProcess("session-start-snapshot", () => new Map<string, StartSnapshot>());
}

export function startKey(input: Pick<SessionStartInput, "cwd" | "agentDir">): string {
  return `${input.agentDir}\0${input.cwd}`;
}

/** At pi's `session_start`: keeps the state of now for this session (replacing an earlier session's). */
export function rememberStartSnapshot(input: SessionStartInput): StartSnapshot {
  const snapshot = takeStartSnapshot(input);
  keptStarts().set(startKey(input), snapshot);
  return snapshot;
}
