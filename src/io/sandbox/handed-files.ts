/**
 * Opening the files a sandboxed child is handed (its copies of jiti's cache entries), right before the spawn: each
 * read-only, never through a link and never blocking, checked again on the open descriptor; one that is gone or no
 * longer fit is replaced by `/dev/null`, so that the descriptors keep their order and the child gets an empty file,
 * which jiti takes for a miss. bubblewrap copies each and closes it before pi starts.
 */
import { closeSync, constants, fstatSync, openSync } from "node:fs";

/** The largest file handed in: jiti's entries for this package are a few KiB each. */
export const MAX_HANDED_BYTES = 4 * 1024 * 1024;

const ownUid = typeof process.getuid === "function" ? process.getuid() : undefined;

/** Whether `stats` describes a file worth handing in: a regular file of this user's under the limit. */
export function isHandableFile(stats: { isFile(): boolean; size: number; uid: number }): boolean {
  return stats.isFile() && stats.size <= MAX_HANDED_BYTES && (ownUid === undefined || stats.uid === ownUid);
}

function openChecked(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (isHandableFile(fstatSync(fd))) return fd;
  } catch {
    // unreadable: as if gone
  }
  closeSync(fd);
  return undefined;
}

/** Descriptors for `paths`, in order; `close()` closes them all (the parent's copies, once the child has them). */
export function openHandedFiles(paths: readonly string[]): { fds: number[]; close(): void } {
  const fds: number[] = [];
  try {
    for (const path of paths) fds.push(openChecked(path) ?? openSync("/dev/null", constants.O_RDONLY));
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    throw error;
  }
  let open = true;
  return {
    fds,
    close: () => {
      if (!open) return;
      open = false;
      for (const fd of fds) {
        try {
          closeSync(fd);
        } catch {
          // already closed
        }
      }
    },
  };
}
