/**
 * This package as a pi's command line names it: the `-e` / `--extension` values a pi was started with, and whether
 * one of them is this package (its folder or its entry, as given or with links resolved).
 */
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { PACKAGE_ROOT } from "./paths.ts";

/** The `-e`/`--extension` values of a pi's command line, in order. */
export function extensionArgsOf(argv: readonly string[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if ((arg === "-e" || arg === "--extension") && argv[i + 1] !== undefined) {
      found.push(argv[i + 1] as string);
      i++;
    } else if (arg?.startsWith("--extension=")) {
      found.push(arg.slice("--extension=".length));
    }
  }
  return found;
}

function withRealPath(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/** Whether a pi started with `argv` (in `cwd`) was given this package with `-e`. */
export function givenThisPackage(argv: readonly string[], cwd: string, packageRoot: string = PACKAGE_ROOT): boolean {
  const own = new Set([...withRealPath(packageRoot), ...withRealPath(join(packageRoot, "extension.ts"))]);
  return extensionArgsOf(argv).some((value) => withRealPath(resolve(cwd, value)).some((path) => own.has(path)));
}
