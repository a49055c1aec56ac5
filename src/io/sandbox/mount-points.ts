/**
 * The mount points bubblewrap makes on the host for a `workspace-write` child's missing protected paths (an empty
 * `.pi/` folder, an empty `AGENTS.md`): removed once the child and everything it started have ended, when still
 * empty, so nothing is left in the person's project. A path another running sandbox of this pi also uses is kept
 * until the last one ends: removing a mount point on the host unmounts it in every sandbox, which would let that
 * child create the path for real.
 */
import { lstatSync, rmdirSync, unlinkSync } from "node:fs";
import { perProcess } from "../shared/per-process.ts";

function users(): Map<string, number> {
  return perProcess("sandbox-mount-points", () => new Map<string, number>());
}

/** Records that a child about to start uses `paths` as mount points. */
export function claimMountPoints(paths: readonly string[]): void {
  const map = users();
  for (const path of paths) map.set(path, (map.get(path) ?? 0) + 1);
}

/** Removes what bubblewrap made for `paths` (an empty folder, an empty file), unless another running child still uses it. */
export function releaseMountPoints(paths: readonly string[]): void {
  const map = users();
  for (const path of paths) {
    const left = (map.get(path) ?? 1) - 1;
    if (left > 0) {
      map.set(path, left);
      continue;
    }
    map.delete(path);
    try {
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats?.isDirectory()) rmdirSync(path);
      else if (stats?.isFile() && stats.size === 0) unlinkSync(path);
    } catch {
      // not empty (someone else wrote it since), or gone: left as it is
    }
  }
}
