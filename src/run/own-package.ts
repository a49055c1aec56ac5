/**
 * This package as seen from a child's command line (src/run/command-line.ts's OwnPackage): the preload node
 * runs ahead of a child pi, and the paths a parent's `-e` may use to name the package. Computed once per process.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_ROOT } from "../shared/paths.js";
import type { OwnPackage } from "./command-line.ts";

/** The entry pi loads (package.json's `pi.extensions`). */
const ENTRY_FILE = "extension.ts";
const PRELOAD_FILE = join("src", "run", "child-preload.js");

function withRealPath(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

let cached: OwnPackage | undefined;

export function ownPackage(): OwnPackage {
  cached ??= {
    preloadUrl: pathToFileURL(join(PACKAGE_ROOT, PRELOAD_FILE)).href,
    paths: [...withRealPath(PACKAGE_ROOT), ...withRealPath(join(PACKAGE_ROOT, ENTRY_FILE))],
  };
  return cached;
}
