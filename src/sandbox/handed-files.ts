/**
 * The files a sandboxed child is handed, found and opened at the spawn as the descriptors bubblewrap copies from.
 */
import {
  accessSync,
  constants,
  lstatSync,
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SANDBOXED_CHILD_MODULES, jitiCacheNames, loginCopyText } from "./hand-in.ts";
import { PACKAGE_ROOT } from "../shared/this-process.ts";

/*
 * Which of jiti's cache entries a sandboxed child gets copies of: those of the package's modules it loads
 * (src/sandbox/hand-in.ts, about a dozen), in jiti's cache folder `<temp dir>/jiti`, copied by bubblewrap into the same folder of the child's private /tmp
 * (src/sandbox/bwrap-args.ts; the descriptors, and what may be handed in, in src/sandbox/handed-files.ts).
 *
 * Why copies: jiti turns its file cache off in a folder it cannot write (it checks the folder for `W_OK`), so the
 * host's folder bound read-only was never read and each sandboxed child compiled the package anew (about 0.4 s per
 * start with pi 1.x). A copy in the private /tmp is written by that child alone and ends with it: nothing the child
 * writes there is read by the person's pi or by another child. A writable bind of the host's folder, or hard links
 * to its files, would let the child rewrite what every later pi executes, so neither is used. Only what the
 * person's own pi would read is copied: from a folder the user can write (jiti's rule), regular files the user owns,
 * each under a size limit.
 */
/** jiti's cache folder when pi's loader has no `node_modules` beside it, as in both pis' layouts. */
export function hostJitiCacheDir(): string {
  return join(tmpdir(), "jiti");
}

/**
 * The package's TypeScript files a sandboxed child loads (src/sandbox/hand-in.ts): the only ones whose
 * entries are worth copying, since a sandboxed child gets the refusing tool and none of the runtime.
 */
export function sandboxedChildSources(root: string = PACKAGE_ROOT): string[] {
  return SANDBOXED_CHILD_MODULES.map((module) => join(root, ...module.split("/")));
}

/**
 * The host paths of the entries to copy, one per source file at most. Each name is looked up, never the folder
 * listed: a cache grown to thousands of entries (one per checkout of every file) costs no more.
 */
export function jitiEntriesToCopy(
  hostCache: string = hostJitiCacheDir(),
  sources: readonly string[] = sandboxedChildSources(),
): string[] {
  try {
    accessSync(hostCache, constants.W_OK);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const source of sources) {
    // A module has one entry (pi imports each the same way): the first name found is it.
    for (const name of jitiCacheNames(source)) {
      const path = join(hostCache, name);
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (!stats) continue;
      if (isHandableFile(stats)) found.push(path);
      break;
    }
  }
  return found;
}

/*
 * Opening the files a sandboxed child is handed (its copy of the login file, its copies of jiti's cache entries,
 * empty read-only files), right before the spawn: each read-only, never through a link and never blocking, checked
 * again on the open descriptor; one that is gone or no longer fit is replaced by `/dev/null`, so that the
 * descriptors keep their order and the child gets an empty file, which jiti takes for a miss. bubblewrap copies
 * each and closes it before pi starts.
 */
/**
 * What a descriptor is opened on: a host file (`/dev/null` for an empty one), or the child's copy of the person's
 * `auth.json` (made at the spawn, so it holds the login as it is then).
 */
export type HandedSource = string | { loginCopyOf: string };

/** The largest file handed in: jiti's entries for this package are a few KiB each. */
export const MAX_HANDED_BYTES = 4 * 1024 * 1024;

const ownUid = typeof process.getuid === "function" ? process.getuid() : undefined;

/** Whether `stats` describes a file worth handing in: a regular file of this user's under the limit. */
function isHandableFile(stats: { isFile(): boolean; size: number; uid: number }): boolean {
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
