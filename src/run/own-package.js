// @ts-check
/**
 * This package as seen from a child's command line (src/run/command-line.js's OwnPackage): the preload node
 * runs ahead of a child pi, and the paths a parent's `-e` may use to name the package. Computed once per process.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_ROOT } from "../shared/paths.js";
/** @import { OwnPackage } from "./command-line.js" */

/** The entry pi loads (package.json's `pi.extensions`). */
const ENTRY_FILE = "extension.ts";
const PRELOAD_FILE = join("src", "run", "child-preload.js");

/**
 * @param {string} path
 * @returns {string[]}
 */
function withRealPath(path) {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/** @type {OwnPackage | undefined} */
let cached;

/** @returns {OwnPackage} */
export function ownPackage() {
  cached ??= {
    preloadUrl: pathToFileURL(join(PACKAGE_ROOT, PRELOAD_FILE)).href,
    paths: [...withRealPath(PACKAGE_ROOT), ...withRealPath(join(PACKAGE_ROOT, ENTRY_FILE))],
  };
  return cached;
}
