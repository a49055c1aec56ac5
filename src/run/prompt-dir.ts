/**
 * Prompt folders in the temp folder, as earlier versions of the package made them for an agent's body
 * (`pi-subagent-prompt-<pid>-<start time>-XXXXXX`; the body now lives in the task's folder, src/run/prompt-file.ts).
 * One left by a pi of such a version that was killed hard is recognised by the owner its name carries and swept
 * when the start-up clean-up runs.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isIdentityAlive } from "../shared/proc-identity.ts";

import type { ProcessIdentity } from "../shared/proc-identity.ts";

export const PROMPT_DIR_PREFIX = "pi-subagent-prompt-";

/** The owner named in a prompt folder's name, or undefined for a name that is not ours. */
export function promptDirOwner(name: string): ProcessIdentity | undefined {
  const match = /^pi-subagent-prompt-(\d+)-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
  if (!match) return undefined;
  return match[2] === "0" ? { pid: Number(match[1]) } : { pid: Number(match[1]), start: match[2] };
}

/**
 * Removes prompt folders of ours (our uid) whose owning pi no longer runs. Returns how many it removed.
 * One readdir of the temp folder, only when the start-up clean-up runs for a run to reap (never on start-up's
 * path: a crowded temp folder costs several ms to list).
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
