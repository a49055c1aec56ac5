// @ts-check
/**
 * Identity of a file's content as far as the file system tells: unchanged identity means unchanged text. Kept
 * apart from the reading (read-regular-file.js) so the roster cache can fingerprint agent files on pi's
 * start-up path without loading more.
 */

/**
 * @typedef {object} FileIdentity
 * @property {number} ino
 * @property {number} size
 * @property {number} mtimeMs
 * @property {number} ctimeMs
 */

/**
 * @param {import("node:fs").Stats} stats
 * @returns {FileIdentity}
 */
export function identityOf(stats) {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

/**
 * @param {FileIdentity} a
 * @param {FileIdentity} b
 * @returns {boolean}
 */
export function sameIdentity(a, b) {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
