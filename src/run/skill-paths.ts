import { isAbsolute, relative, resolve } from "node:path";

export interface SkillPathResolution {
  paths: string[];
  warnings: string[];
}

/**
 * Resolves an agent's `skills` entries: `~` is the home directory, absolute paths stay, relative paths are
 * taken from the working directory. A relative path that climbs out of the working directory is dropped
 * with a warning: an agent file should not reach into arbitrary places through `../`.
 */
export function resolveSkillPaths(entries: readonly string[], cwd: string, home: string): SkillPathResolution {
  const paths: string[] = [];
  const warnings: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    if (entry === "~" || entry.startsWith("~/")) {
      paths.push(resolve(home, entry.slice(2)));
      continue;
    }
    if (isAbsolute(entry)) {
      paths.push(entry);
      continue;
    }
    const full = resolve(cwd, entry);
    const rel = relative(cwd, full);
    if (rel === ".." || rel.startsWith("../") || isAbsolute(rel)) {
      warnings.push(`skill path "${entry}" leaves the working directory and was not loaded`);
      continue;
    }
    paths.push(full);
  }
  return { paths: [...new Set(paths)], warnings };
}
