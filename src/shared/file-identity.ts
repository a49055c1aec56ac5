/**
 * Identity of a file's content as far as the file system tells: unchanged identity means unchanged text. Kept
 * apart from the reading (read-regular-file.ts) so the roster cache can fingerprint agent files on pi's
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
