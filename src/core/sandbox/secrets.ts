/**
 * The person's secrets a sandboxed child never sees, as paths under their home folder; the user-level
 * `"$sandboxHide"` list adds more (a path starting with `~/`, or absolute). Pure.
 */
import { isAbsolute, join, normalize } from "node:path";

export const DEFAULT_HIDDEN_PATHS: readonly string[] = Object.freeze([
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.config/gcloud",
  "~/.netrc",
  "~/.docker/config.json",
]);

/** `~/x` under `home`, an absolute path as it is; anything else (relative) is no path we can hide. */
export function expandHiddenPath(path: string, home: string): string | undefined {
  const trimmed = path.trim();
  if (trimmed === "~") return normalize(home);
  if (trimmed.startsWith("~/")) return normalize(join(home, trimmed.slice(2)));
  return isAbsolute(trimmed) ? normalize(trimmed) : undefined;
}

export function hiddenPaths(home: string, extra: readonly string[]): string[] {
  const paths = [...DEFAULT_HIDDEN_PATHS, ...extra].map((path) => expandHiddenPath(path, home)).filter((path): path is string => path !== undefined);
  return [...new Set(paths)];
}
