/**
 * Opening the files a sandboxed child is handed (its copy of the login file, its copies of jiti's cache entries,
 * empty read-only files), right before the spawn: each read-only, never through a link and never blocking, checked
 * again on the open descriptor; one that is gone or no longer fit is replaced by `/dev/null`, so that the
 * descriptors keep their order and the child gets an empty file, which jiti takes for a miss. bubblewrap copies
 * each and closes it before pi starts.
 */
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loginCopyText } from "./login-copy.ts";

/**
 * What a descriptor is opened on: a host file (`/dev/null` for an empty one), or the child's copy of the person's
 * `auth.json` (made at the spawn, so it holds the login as it is then).
 */
export type HandedSource = string | { loginCopyOf: string };

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

/**
 * A descriptor on the child's copy of the login file: written into a fresh owner-only folder, opened, and removed
 * at once (the descriptor keeps it until bubblewrap has copied it). No file, or one pi could not read: empty.
 */
function openLoginCopy(authFile: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(authFile, "utf8");
  } catch {
    return undefined;
  }
  const copy = loginCopyText(text);
  if (copy === undefined) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "pi-subagent-login-"));
  try {
    const file = join(dir, "auth.json");
    writeFileSync(file, copy, { mode: 0o600, flag: "wx" });
    return openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function openSource(source: HandedSource): number | undefined {
  if (typeof source !== "string") return openLoginCopy(source.loginCopyOf);
  return source === "/dev/null" ? undefined : openChecked(source);
}

/** Descriptors for `sources`, in order; `close()` closes them all (the parent's copies, once the child has them). */
export function openHandedFiles(sources: readonly HandedSource[]): { fds: number[]; close(): void } {
  const fds: number[] = [];
  try {
    for (const source of sources) fds.push(openSource(source) ?? openSync("/dev/null", constants.O_RDONLY));
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
