/**
 * The private temp folder that holds an agent's body for the child's `--append-system-prompt`. Its name carries
 * the owning pi's identity (`pi-subagent-prompt-<pid>-<start time>-XXXXXX`), so a folder left behind by a pi
 * that was killed hard can be recognised as ours and stale, and swept at a later start.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isIdentityAlive, ownIdentity, type ProcessIdentity } from "./proc-identity.js";

export const PROMPT_DIR_PREFIX = "pi-subagent-prompt-";

export function createPromptDir(base: string = tmpdir()): string {
  const owner = ownIdentity();
  return mkdtempSync(join(base, `${PROMPT_DIR_PREFIX}${owner.pid}-${owner.start ?? "0"}-`));
}

/** The owner named in a prompt folder's name, or undefined for a name that is not ours. */
export function promptDirOwner(name: string): ProcessIdentity | undefined {
  const match = /^pi-subagent-prompt-(\d+)-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
  if (!match) return undefined;
  return match[2] === "0" ? { pid: Number(match[1]) } : { pid: Number(match[1]), start: match[2] };
}

/**
 * Removes prompt folders of ours (our uid) whose owning pi no longer runs. Returns how many it removed.
 * One readdir of the temp folder: cheap, but still run after start-up, never on its path.
 */
export function sweepStalePromptDirs(base: string = tmpdir(), alive: (owner: ProcessIdentity) => boolean = isIdentityAlive): number {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return 0;
  }
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(PROMPT_DIR_PREFIX)) continue;
    const owner = promptDirOwner(name);
    if (!owner || alive(owner)) continue;
    const path = join(base, name);
    try {
      const stat = statSync(path);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
      rmSync(path, { recursive: true, force: true });
      removed += 1;
    } catch {
      // removed meanwhile, or not ours to remove
    }
  }
  return removed;
}
