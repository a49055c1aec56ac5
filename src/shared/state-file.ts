/**
 * The package's own state files in the agent dir (task records, outbox entries, `output.md`, run locks, the
 * running index, the roster cache), read and written under the same hostile-file rules as agent and config
 * files: only a regular file is read, never more than a cap, never by following a symbolic link, and never in a
 * way that can block (a FIFO). A record planted as a link to `/dev/zero` would otherwise be read until memory
 * ran out, a FIFO would hang pi, and a write through a planted link would overwrite the link's target.
 *
 * Writes replace a link instead of following it (writeFileAtomicSync), and check that every byte reached the
 * file (a short write on a nearly full disk is an error, never a truncated file in place).
 */
import { closeSync, openSync, rmSync } from "node:fs";
import { readRegularFileSync, type RegularFileRead } from "./read-regular-file.ts";
import { writeAllSync } from "./atomic-file.ts";

/**
 * A task record holds the whole answer (a long one too, also saved as output.md), so its cap is generous; a
 * bigger file is not one this package wrote.
 */
export const RECORD_MAX_BYTES = 64 * 1024 * 1024;
/** Outbox entries, run locks, the roster cache: a few hundred bytes each, a few KiB for the roster. */
export const SMALL_STATE_MAX_BYTES = 1024 * 1024;

/** Reads a state file as UTF-8 under the rules above; `ok: false` says why it was not read. */
export function readStateFileSync(path: string, maxBytes: number): RegularFileRead {
  return readRegularFileSync(path, maxBytes, { followLinks: false });
}

/** A state file's JSON, or undefined when it is missing, refused or not JSON. */
export function readStateJsonSync(path: string, maxBytes: number): unknown {
  const read = readStateFileSync(path, maxBytes);
  if (!read.ok) return undefined;
  try {
    return JSON.parse(read.text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Creates `path` exclusively (it must not exist, as a file or a link: `O_EXCL` never follows one) with
 * `content`, every byte checked; a failed write removes the half-made file and throws. For files whose
 * creation is the claim itself (a run lock) or that must be new (the agent's prompt file). Not flushed: both
 * matter only while their pi runs, and a dispatch should not wait for the disk.
 */
export function createStateFileSync(path: string, content: string): void {
  const fd = openSync(path, "wx", 0o600);
  let complete = false;
  try {
    writeAllSync(fd, Buffer.from(content, "utf8"));
    complete = true;
  } finally {
    closeSync(fd);
    if (!complete) rmSync(path, { force: true });
  }
}
