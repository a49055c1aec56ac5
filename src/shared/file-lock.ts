/**
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
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { WriteBackError } from "./write-back-error.ts";

export const LOCK_SUFFIX = ".lock";
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

export interface LockContent {
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
export interface LockSnapshot {
  raw: string;
  identity: string;
  content: LockContent;
  mtimeMs: number;
}

async function snapshotLock(lockPath: string): Promise<LockSnapshot | undefined> {
  try {
    const info = await stat(lockPath);
    const raw = await readFile(lockPath, "utf8");
    return { raw, identity: `${info.ino}:${info.mtimeMs}:${raw}`, content: parseLockContent(raw), mtimeMs: info.mtimeMs };
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
export async function withFileLock<T>(filePath: string, action: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lockPath = lockPathFor(filePath);
  const token = await acquire(filePath, options);
  try {
    return await action();
  } finally {
    await release(lockPath, token);
  }
}
