/**
 * Which of jiti's cache entries a sandboxed child gets copies of: those of the package's modules it loads
 * (src/sandbox/child-modules.ts, about a dozen), in jiti's cache folder `<temp dir>/jiti`, copied by bubblewrap into the same folder of the child's private /tmp
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
import { accessSync, constants, lstatSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SANDBOXED_CHILD_MODULES } from "./child-modules.ts";
import { jitiCacheNames } from "./jiti-cache-names.ts";
import { PACKAGE_ROOT } from "../shared/paths.ts";
import { isHandableFile } from "./handed-files.ts";

/** jiti's cache folder when pi's loader has no `node_modules` beside it, as in both pis' layouts. */
export function hostJitiCacheDir(): string {
  return join(tmpdir(), "jiti");
}

/**
 * The package's TypeScript files a sandboxed child loads (src/sandbox/child-modules.ts): the only ones whose
 * entries are worth copying, since a sandboxed child gets the refusing tool and none of the runtime.
 */
export function sandboxedChildSources(root: string = PACKAGE_ROOT): string[] {
  return SANDBOXED_CHILD_MODULES.map((module) => join(root, ...module.split("/")));
}

/**
 * The host paths of the entries to copy, one per source file at most. Each name is looked up, never the folder
 * listed: a cache grown to thousands of entries (one per checkout of every file) costs no more.
 */
export function jitiEntriesToCopy(hostCache: string = hostJitiCacheDir(), sources: readonly string[] = sandboxedChildSources()): string[] {
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
