/**
 * Reading files a project or anyone may have planted: a regular file only, under a size cap, never blocking, with the identity that says a file has not changed.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from "node:fs";

/*
 * Reading a small text file that a project (or anyone) may have planted: only a regular file is read, never
 * more than a size limit, and never in a way that can block. A symlink to `/dev/zero` would otherwise be read
 * until memory runs out, and opening a FIFO waits for a writer forever (deaf to signals, as `open()` is not
 * interruptible from JavaScript).
 *
 * The check is made twice: `stat` before opening (so a device or FIFO is never even opened), and `fstat` on
 * the opened descriptor (so a file swapped between the two calls is still caught). The open uses
 * `O_NONBLOCK`, which makes opening a FIFO return at once should one appear in between.
 */
/**
 * The `ok: false` kinds:
 * - `missing`: No file there (or a dangling link): not a problem worth a warning.
 * - `directory`: A folder where a file was expected.
 * - `refused`: Something that must not be read; `reason` says why, for a warning that names the file.
 */
export type RegularFileRead =
  | { ok: true; text: string; identity: FileIdentity }
  | { ok: false; kind: "missing"; code: string }
  | { ok: false; kind: "directory" }
  | { ok: false; kind: "refused"; reason: string };

function errorCode(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") return error.code;
  return error instanceof Error ? error.message : String(error);
}

/** `52 KiB`, `1 MiB`: limits as a person reads them. */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

/** What kind of non-regular file `stats` describes, for the warning. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

export interface ReadRegularFileOptions {
  /**
   * false: a symbolic link is refused, never followed (the package's own state files, where a link can only
   * have been planted; see state-file.ts). Default true (agent and config files may be links, as dotfiles are).
   */
  followLinks?: boolean;
}

function checkStats(stats: Stats, maxBytes: number): RegularFileRead | undefined {
  if (stats.isDirectory()) return { ok: false, kind: "directory" };
  if (stats.isSymbolicLink())
    return { ok: false, kind: "refused", reason: "it is a symbolic link, which is not followed here" };
  if (!stats.isFile()) return { ok: false, kind: "refused", reason: `it is ${kindOf(stats)}, not a regular file` };
  if (stats.size > maxBytes) {
    return {
      ok: false,
      kind: "refused",
      reason: `it is too large (${stats.size} bytes; the limit is ${formatBytes(maxBytes)})`,
    };
  }
  return undefined;
}

/**
 * The identity of the regular file at `path` (links followed), or why it will not be read. Cheap: one `stat`.
 * Callers that cache parses compare this with the identity of the text they parsed.
 */
export function statRegularFile(
  path: string,
  maxBytes: number,
  options: ReadRegularFileOptions = {},
): { ok: true; identity: FileIdentity } | Exclude<RegularFileRead, { ok: true }> {
  let stats: Stats;
  try {
    stats = options.followLinks === false ? lstatSync(path) : statSync(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, kind: "missing", code };
    return { ok: false, kind: "refused", reason: `the file cannot be read (${code})` };
  }
  const problem = checkStats(stats, maxBytes);
  if (problem && !problem.ok) return problem;
  return { ok: true, identity: identityOf(stats) };
}

/** Reads the regular file at `path` as UTF-8, at most `maxBytes`, without ever blocking on it. */
export function readRegularFileSync(
  path: string,
  maxBytes: number,
  options: ReadRegularFileOptions = {},
): RegularFileRead {
  const before = statRegularFile(path, maxBytes, options);
  if (!before.ok) return before;
  let fd: number;
  try {
    // O_NOFOLLOW: a link swapped in after the lstat is refused by the open itself (ELOOP).
    const noFollow = options.followLinks === false ? constants.O_NOFOLLOW : 0;
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | noFollow);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return { ok: false, kind: "missing", code };
    return { ok: false, kind: "refused", reason: `the file cannot be read (${code})` };
  }
  try {
    const stats = fstatSync(fd);
    const problem = checkStats(stats, maxBytes);
    if (problem) return problem;
    // One byte more than the limit, so a file that grew since the stat is still caught.
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, stats.size + 1));
    let filled = 0;
    for (;;) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
      if (filled === buffer.length) {
        if (filled > maxBytes) {
          return { ok: false, kind: "refused", reason: `it is too large (the limit is ${formatBytes(maxBytes)})` };
        }
        break;
      }
    }
    return { ok: true, text: buffer.toString("utf8", 0, filled), identity: identityOf(stats) };
  } catch (error) {
    return { ok: false, kind: "refused", reason: `the file cannot be read (${errorCode(error)})` };
  } finally {
    closeSync(fd);
  }
}

/*
 * Identity of a file's content as far as the file system tells: unchanged identity means unchanged text. Kept
 * apart from the reading (`readRegularFileSync` above) so the roster cache can fingerprint agent files on pi's
 * start-up path without loading more.
 */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

export function identityOf(stats: import("node:fs").Stats): FileIdentity {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
