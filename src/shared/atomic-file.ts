/**
 * All-or-nothing file replacement: the new content goes to a temp file in the same folder, is flushed to disk
 * (fsync), and only then renamed over the target. rename() within one file system is atomic, so a reader sees
 * either the whole old file or the whole new one, and a crash at any moment leaves the old file intact (at
 * worst a stray temp file named `.<name>.<pid>.<random>.tmp` next to it).
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

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
export async function writeFileAtomic(filePath: string, content: string, options: AtomicWriteOptions = {}): Promise<void> {
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
export function writeAllSync(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) {
    const written = writeSync(fd, data, offset, data.length - offset);
    if (written <= 0) throw Object.assign(new Error(`ENOSPC: no space left on device, wrote ${offset} of ${data.length} bytes`), { code: "ENOSPC" });
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
