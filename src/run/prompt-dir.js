// @ts-check
/**
 * The private temp folder that holds an agent's body for the child's `--append-system-prompt`. Its name carries
 * the owning pi's identity (`pi-subagent-prompt-<pid>-<start time>-XXXXXX`), so a folder left behind by a pi
 * that was killed hard can be recognised as ours and stale, and swept at a later start.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isIdentityAlive, ownIdentity } from "./proc-identity.js";

/** @typedef {import("./proc-identity.js").ProcessIdentity} ProcessIdentity */

export const PROMPT_DIR_PREFIX = "pi-subagent-prompt-";

/**
 * @param {string} [base]
 * @returns {string}
 */
export function createPromptDir(base = tmpdir()) {
  const owner = ownIdentity();
  return mkdtempSync(join(base, `${PROMPT_DIR_PREFIX}${owner.pid}-${owner.start ?? "0"}-`));
}

/**
 * The owner named in a prompt folder's name, or undefined for a name that is not ours.
 * @param {string} name
 * @returns {ProcessIdentity | undefined}
 */
export function promptDirOwner(name) {
  const match = /^pi-subagent-prompt-(\d+)-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
  if (!match) return undefined;
  return match[2] === "0" ? { pid: Number(match[1]) } : { pid: Number(match[1]), start: match[2] };
}

/**
 * Removes prompt folders of ours (our uid) whose owning pi no longer runs. Returns how many it removed.
 * One readdir of the temp folder: cheap, but still run after start-up, never on its path.
 * @param {string} [base]
 * @param {(owner: ProcessIdentity) => boolean} [alive]
 * @returns {number}
 */
export function sweepStalePromptDirs(base = tmpdir(), alive = isIdentityAlive) {
  /** @type {string[]} */
  let names;
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
