/**
 * Writing the files we own: all-or-nothing replacement, the package's state files in the agent dir, a lock that serialises read-modify-write cycles across processes, and the one error of the write-back path.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, realpath, rename, stat, unlink, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { readRegularFileSync, type RegularFileRead } from "./safe-read.ts";
import { hostname } from "node:os";

/*
 * All-or-nothing file replacement: the new content goes to a temp file in the same folder, is flushed to disk
 * (fsync), and only then renamed over the target. rename() within one file system is atomic, so a reader sees
 * either the whole old file or the whole new one, and a crash at any moment leaves the old file intact (at
 * worst a stray temp file named `.<name>.<pid>.<random>.tmp` next to it).
 * Not write-file-atomic 6.0.0: run under our tests, its sync write went through a planted symlink and renamed a
 * short write on a full disk into place (16 of 40 KiB, no error), and its import costs ~7.5 ms (median, 21 runs).
 */
export interface AtomicWriteOptions {
  /**
   * Test hook, called after the temp file is complete and flushed and before the rename. A throw here is a crash at
   * the worst moment: the target must stay as it was and the temp file must be gone.
   */
  beforeRename?: (tempPath: string) => void | Promise<void>;
}

/** The temp file name used next to `filePath` (hidden, unique to this process and call). */
export function atomicTempPath(filePath: string): string {
  return join(dirname(filePath), `.${basename(filePath)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/** The file a write to `filePath` really replaces: the target of a symlink, so the link itself survives. */
async function resolveTarget(filePath: string): Promise<string> {
  try {
    return await realpath(filePath);
  } catch {
    return filePath;
  }
}

async function existingMode(filePath: string): Promise<number | undefined> {
  try {
    return (await stat(filePath)).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Flushes the folder entry, so the rename itself survives a power cut. Not every file system allows it. */
async function syncDirectory(dirPath: string): Promise<void> {
  try {
    const handle = await open(dirPath, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

/**
 * Replaces `filePath` with `content` (UTF-8) atomically. The folder must exist. An existing file keeps its
 * permission bits; a new file gets the default ones (0666 minus the umask).
 */
export async function writeFileAtomic(
  filePath: string,
  content: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const target = await resolveTarget(filePath);
  const tempPath = atomicTempPath(target);
  const mode = await existingMode(target);
  let renamed = false;
  try {
    const handle = await open(tempPath, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(content, "utf8");
      // open() applied the umask; an existing file's exact bits are restored here.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.(tempPath);
    await rename(tempPath, target);
    renamed = true;
    await syncDirectory(dirname(target));
  } finally {
    if (!renamed) await unlink(tempPath).catch(() => undefined);
  }
}

/**
 * Writes all of `data` to `fd`, or throws. One `write()` may write less than it was given (a nearly full disk
 * takes what fits and returns the count; only the next call fails with ENOSPC), so the count is checked and
 * the rest written until nothing is left. A call that writes nothing at all is a full disk too.
 */
function writeAllSync(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) {
    const written = writeSync(fd, data, offset, data.length - offset);
    if (written <= 0)
      throw Object.assign(new Error(`ENOSPC: no space left on device, wrote ${offset} of ${data.length} bytes`), {
        code: "ENOSPC",
      });
    offset += written;
  }
}

/**
 * The synchronous twin of `writeFileAtomic`, for the package's own state files (records, outbox entries,
 * `output.md`, the roster cache), written from places that cannot await (pi's exit path among them). Unlike
 * the twin it never writes through a symbolic link: a link planted where a state file belongs is replaced by
 * the new file, its target left alone. Every byte is checked written and flushed before the rename, so an
 * incomplete temp file is never renamed into place. New files get mode 0600 (task records are private).
 */
export function writeFileAtomicSync(filePath: string, content: string): void {
  const tempPath = atomicTempPath(filePath);
  let renamed = false;
  try {
    const fd = openSync(tempPath, "wx", 0o600);
    try {
      writeAllSync(fd, Buffer.from(content, "utf8"));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tempPath, filePath);
    renamed = true;
  } finally {
    if (!renamed) rmSync(tempPath, { force: true });
  }
}

/*
 * The package's own state files in the agent dir (task records, outbox entries, `output.md`, run locks, the
 * running index, the roster cache), read and written under the same hostile-file rules as agent and config
 * files: only a regular file is read, never more than a cap, never by following a symbolic link, and never in a
 * way that can block (a FIFO). A record planted as a link to `/dev/zero` would otherwise be read until memory
 * ran out, a FIFO would hang pi, and a write through a planted link would overwrite the link's target.
 *
 * Writes replace a link instead of following it (writeFileAtomicSync), and check that every byte reached the
 * file (a short write on a nearly full disk is an error, never a truncated file in place).
 */
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

/*
 * A lock file that serialises read-modify-write cycles on one file across processes (two pi windows saving
 * the same subagent-isolation.json at once).
 *
 * The lock for `<file>` is `<file>.lock`, created with `open(..., "wx")` (fails if it exists, atomically) and
 * holding `{"pid", "hostname", "acquiredAt", "token"}` as JSON. A writer that finds the lock taken retries with
 * a short growing backoff (a few ms up to 50 ms, with jitter) until its deadline (10 s by default). A lock is
 * stale, and is broken, when its holder is a process on this host that no longer exists, or when it is older
 * than `staleMs` (5 s by default; a real holder keeps it for milliseconds). Breaking goes through a second
 * lock, `<file>.lock.break`, and re-checks that the stale lock is still the same one before removing it, so
 * two waiters never both break it and then delete each other's fresh lock. The lock is always released in a
 * `finally`, and only by its owner (checked by token).
 * Not proper-lockfile 4.1.2: its lock is a directory judged stale only by an mtime it refreshes on a timer, so a
 * dead holder's lock blocks for the whole stale time (ours breaks at once by pid), and its import costs ~15 ms.
 */
const LOCK_SUFFIX = ".lock";
const BREAK_SUFFIX = ".break";

export interface FileLockOptions {
  /** Give up (WriteBackError "lock-timeout") after waiting this long. Default 10 000 ms. */
  timeoutMs?: number;
  /** A lock older than this is stale whoever holds it. Default 5 000 ms. */
  staleMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_STALE_MS = 5_000;
const FIRST_BACKOFF_MS = 2;
const MAX_BACKOFF_MS = 50;

interface LockContent {
  pid?: number;
  hostname?: string;
  acquiredAt?: number;
  token?: string;
}

/** The lock file guarding `filePath`. */
export function lockPathFor(filePath: string): string {
  return `${filePath}${LOCK_SUFFIX}`;
}

function errorCode(error: unknown): string | undefined {
  return error && typeof error === "object" && "code" in error ? String(error.code) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function parseLockContent(raw: string): LockContent {
  try {
    const data: unknown = JSON.parse(raw);
    return data && typeof data === "object" ? (data as LockContent) : {};
  } catch {
    // Empty (the holder is between open and write, or died there) or garbage: only its age can tell.
    return {};
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return errorCode(error) === "EPERM";
  }
}

/** A snapshot of the lock file: its bytes and identity, so a later look can tell whether it is the same lock. */
interface LockSnapshot {
  raw: string;
  identity: string;
  content: LockContent;
  mtimeMs: number;
}

async function snapshotLock(lockPath: string): Promise<LockSnapshot | undefined> {
  try {
    const info = await stat(lockPath);
    const raw = await readFile(lockPath, "utf8");
    return {
      raw,
      identity: `${info.ino}:${info.mtimeMs}:${raw}`,
      content: parseLockContent(raw),
      mtimeMs: info.mtimeMs,
    };
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

function isStale(snapshot: LockSnapshot, staleMs: number, now: number): boolean {
  const { pid, hostname: holderHost, acquiredAt } = snapshot.content;
  if (typeof pid === "number" && Number.isInteger(pid) && pid > 0 && holderHost === hostname() && !processExists(pid)) {
    return true;
  }
  const since = typeof acquiredAt === "number" && Number.isFinite(acquiredAt) ? acquiredAt : snapshot.mtimeMs;
  return now - since > staleMs;
}

/**
 * Removes the lock if it is (still) stale. Returns true when it was removed. Guarded by `<lock>.break`, itself
 * removed when older than `staleMs` (a breaker that died in the few lines below).
 */
async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  const first = await snapshotLock(lockPath);
  if (!first) return true;
  if (!isStale(first, staleMs, Date.now())) return false;
  const breakPath = `${lockPath}${BREAK_SUFFIX}`;
  let breaker;
  try {
    breaker = await open(breakPath, "wx");
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
    try {
      const info = await stat(breakPath);
      if (Date.now() - info.mtimeMs > staleMs) await unlink(breakPath);
    } catch {
      // gone already
    }
    return false;
  }
  try {
    await breaker.close();
    const again = await snapshotLock(lockPath);
    if (!again) return true;
    if (again.identity !== first.identity) return false;
    await unlink(lockPath).catch((error: unknown) => {
      if (errorCode(error) !== "ENOENT") throw error;
    });
    return true;
  } finally {
    await unlink(breakPath).catch(() => undefined);
  }
}

async function acquire(filePath: string, options: FileLockOptions): Promise<string> {
  const lockPath = lockPathFor(filePath);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const deadline = Date.now() + timeoutMs;
  const token = randomBytes(8).toString("hex");
  let backoff = FIRST_BACKOFF_MS;
  for (;;) {
    try {
      const handle = await open(lockPath, "wx");
      try {
        const content: LockContent = { pid: process.pid, hostname: hostname(), acquiredAt: Date.now(), token };
        await handle.writeFile(JSON.stringify(content), "utf8");
      } finally {
        await handle.close();
      }
      return token;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    if (await breakIfStale(lockPath, staleMs)) continue;
    if (Date.now() >= deadline) {
      throw new WriteBackError(
        "lock-timeout",
        `Could not save ${filePath}: another writer has held its lock file ${lockPath} for more than ${timeoutMs} ms. Try again; if no other pi is saving, delete the lock file.`,
      );
    }
    await sleep(backoff + Math.random() * backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  const current = await snapshotLock(lockPath).catch(() => undefined);
  // Only the owner removes the lock: if it was broken as stale and taken by someone else, it is theirs now.
  if (current?.content.token === token) await unlink(lockPath).catch(() => undefined);
}

/**
 * Runs `action` while holding the lock on `filePath` (the folder must exist). The lock is released however
 * `action` ends.
 */
export async function withFileLock<T>(
  filePath: string,
  action: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const lockPath = lockPathFor(filePath);
  const token = await acquire(filePath, options);
  try {
    return await action();
  } finally {
    await release(lockPath, token);
  }
}

/*
 * The one error type of the write-back path (subagent-isolation.json and agent files). Every refusal is thrown
 * before anything is written, so catching it means the files on disk are exactly as they were; the message is
 * meant to be shown to the person as it is.
 */
/**
 * The codes:
 * - `"invalid-agent-name"`: The agent name cannot be a key (reserved, `$`-prefixed, empty, ...).
 * - `"invalid-value"`: A value in the patch is invalid (empty model, unknown thinking level, unknown patch key, ...).
 * - `"invalid-json"`: The target JSON file does not parse.
 * - `"not-an-object"`: The target JSON file parses, but is not a JSON object.
 * - `"no-frontmatter"`: The agent file has no `---` frontmatter block.
 * - `"invalid-frontmatter"`: The agent file's frontmatter is not valid YAML (or not a mapping), so no line can be
 *  edited safely.
 * - `"name-read-only"`: The patch names `name`, the agent's read-only identity.
 * - `"multi-line-value"`: The patched key's current value spans several lines (or cannot be rewritten on one line
 *  safely).
 * - `"lock-timeout"`: Another writer held the lock for longer than the wait allows.
 */
export type WriteBackErrorCode =
  | "invalid-agent-name"
  | "invalid-value"
  | "invalid-json"
  | "not-an-object"
  | "no-frontmatter"
  | "invalid-frontmatter"
  | "name-read-only"
  | "multi-line-value"
  | "lock-timeout";

export class WriteBackError extends Error {
  readonly code: WriteBackErrorCode;

  constructor(code: WriteBackErrorCode, message: string) {
    super(message);
    this.name = "WriteBackError";
    this.code = code;
  }
}
