/**
 * The names jiti (the loader pi runs TypeScript extensions with; 2.6 in pi 1.x, 2.7 in pi 0.73.1) gives a module's
 * entry in its file cache: `<parent folder>-<file name without extension>[.i].<first 8 hex of the md5 of the path,
 * sha256 under FIPS>.<mjs|cjs>`. An entry stays valid while it ends with the hash of its source, which jiti checks
 * on every read, so a stale copy only costs a compile. Should a later jiti name entries otherwise, no name here
 * is found and the sandboxed child compiles from scratch, as it did before: slower, never unsafe.
 */
import { createHash, getFips } from "node:crypto";
import { basename, dirname } from "node:path";

/** jiti's own rule: the text before the last dot of the file name, unless that dot starts it. */
function stemOf(file: string): string {
  const name = basename(file);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? name : name.slice(0, dot);
}

function pathHash(file: string): string {
  return createHash(getFips() ? "sha256" : "md5").update(file).digest("hex").slice(0, 8);
}

/**
 * The names jiti may have cached `file` under when pi's loader imports it (`jiti.import`, both pis: `.mjs`), with
 * and without jiti's interop marker. Entries of modules loaded with `require` (`.cjs`) are not looked for: pi
 * loads none of this package's that way.
 */
export function jitiCacheNames(file: string): string[] {
  const base = `${basename(dirname(file))}-${stemOf(file)}`;
  const hash = pathHash(file);
  return [`${base}.${hash}.mjs`, `${base}.i.${hash}.mjs`];
}
