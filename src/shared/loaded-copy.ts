/**
 * Which copy of this package serves this pi process. Two clones can be loaded at once (one installed with
 * `pi install`, another given with `-e`); both would register the `subagent` tool, and pi then refuses the second
 * with a bare "Tool "subagent" conflicts with …". The first copy to load claims the process (on `globalThis`, which
 * every copy shares); a later copy from another folder registers nothing but a one-line explanation. The claim is
 * given up at `session_shutdown` (pi fires it before /reload, /new, /resume and /fork load the extensions again), so
 * the copy left after a `pi remove` takes over at the next load.
 */
import { realpathSync } from "node:fs";

const CLAIM_KEY = Symbol.for("pi-subagent-dispatch.loaded-copy");

type Holder = typeof globalThis & { [CLAIM_KEY]?: string };

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

/** `ours` when this copy serves the process (first, or the same folder loaded again); else the folder that does. */
export function claimLoadedCopy(packageRoot: string): { kind: "ours" } | { kind: "other"; root: string } {
  const holder = globalThis as Holder;
  const root = realRoot(packageRoot);
  const claimed = holder[CLAIM_KEY];
  if (claimed === undefined || claimed === root) {
    holder[CLAIM_KEY] = root;
    return { kind: "ours" };
  }
  return { kind: "other", root: claimed };
}

/** Gives the process up, if this copy holds it. */
export function releaseLoadedCopy(packageRoot: string): void {
  const holder = globalThis as Holder;
  if (holder[CLAIM_KEY] === realRoot(packageRoot)) delete holder[CLAIM_KEY];
}

/** The one line a second copy shows instead of pi's tool conflict. */
export function secondCopyNotice(inUse: string, skipped: string): string {
  return `pi-subagent-dispatch: two copies of this package are loaded; the one in ${inUse} is used and the one in ${skipped} is not (remove one: pi remove <its path>, or leave out -e <its path>).`;
}
