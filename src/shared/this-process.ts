/**
 * This pi process and this package in it: where the package and pi's agent dir are, the `-e` values pi's command line names, which copy of the package serves the process, and the state that outlives a load of the extension.
 */
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { realpathSync } from "node:fs";

/*
 * Where the package and pi's agent dir are. pi's own resolution of its agent dir (`getAgentDir`) is given by the
 * entry (extension.ts), since io/ does not import pi (the layer rule in ARCHITECTURE.md); until then (unit tests, scripts) the same rule as pi's is used: `PI_CODING_AGENT_DIR`
 * with a leading `~` expanded, else `~/.pi/agent`.
 */
/** The package root (where `agents/` with the built-in agents lives). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const BUILTIN_AGENTS_DIR = join(PACKAGE_ROOT, "agents");

/** pi's rule for its agent dir, used until the entry hands over pi's own `getAgentDir`. */
export function agentDirByPiRule(): string {
  const fromEnv = process.env.PI_CODING_AGENT_DIR;
  if (fromEnv) {
    if (fromEnv === "~") return homedir();
    return fromEnv.startsWith("~/") ? join(homedir(), fromEnv.slice(2)) : fromEnv;
  }
  return join(homedir(), ".pi", "agent");
}

let resolveAgentDir: () => string = agentDirByPiRule;

/** Makes `agentDir()` pi's own answer (the entry passes pi's `getAgentDir`). */
export function useAgentDirResolver(resolver: () => string): void {
  resolveAgentDir = resolver;
}

/** pi's agent dir: `PI_CODING_AGENT_DIR`, or `~/.pi/agent` (pi's own resolution). */
export function agentDir(): string {
  return resolveAgentDir();
}

/** Where each subagent session (and its task record) lives: `<agent dir>/subagent-sessions/<id>/`. */
export function subagentSessionsDir(base: string = agentDir()): string {
  return join(base, "subagent-sessions");
}

/** The `-e`/`--extension` values of a pi's command line, in order (a child gets them again: prepare-dispatch.ts). */
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

/*
 * Which copy of this package serves this pi process. Two clones can be loaded at once (one installed with
 * `pi install`, another given with `-e`); both would register the `subagent` tool, and pi then refuses the second
 * with a bare "Tool "subagent" conflicts with …". The first copy to load claims the process (on `globalThis`, which
 * every copy shares); a later copy from another folder registers nothing but a one-line explanation. The claim is
 * given up at `session_shutdown` (pi fires it before /reload, /new, /resume and /fork load the extensions again), so
 * the copy left after a `pi remove` takes over at the next load.
 */
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

/**
 * The one home of state that outlives a load of the extension. pi evaluates the package's modules afresh at every
 * load (start-up, /reload, and on pi 1.x /new, /resume and /fork), so a module's own state ends with its load, as
 * pi's /reload contract wants. A few things belong to the process instead, and each is named here:
 * - "child-guard": the live child trees and exit hooks, and the one set of exit and signal listeners that ends them
 *   (src/run/processes.ts); a second set per load would see only its own children;
 * - "child-watch": whether this child pi already watches its parent (src/run/parent-watchdog.ts);
 * - "reported-warnings": agent-file warnings already shown (src/agents/warnings.ts), so a reload does not
 *   repeat them;
 * - "startup-sweep": whether the clean-up of a hard-killed pi's runs already ran, and when it has
 *   (src/run/startup-work.ts, used by src/start/main-pi.ts);
 * - "sandbox-probe": whether each bwrap found can make a sandbox (src/sandbox/sandbox-layout.ts), tried once;
 * - "sandbox-mount-points": the number of this pi's last entry in the shared record of mount points
 *   (src/sandbox/mount-points.ts), so that two loads never name two claims alike;
 * - "session-start-snapshot": what the session's authority is decided from, as it was at its start
 *   (src/authority/start-snapshot.ts), kept by the start-up part at pi's `session_start` and read by the
 *   runtime, which is a later load of the modules;
 * - "login-refresh-failures": when each OAuth login's refresh last failed (src/pi/tool/authority.ts),
 *   so a /reload does not start the retry wait over;
 * - "warm-children": the children started ahead of their task (src/warm/warm-pool.ts), which the entry's
 *   `session_shutdown` ends without loading the pool's modules (`perProcessIfMade`).
 */
export type PerProcessName =
  | "child-guard"
  | "child-watch"
  | "reported-warnings"
  | "startup-sweep"
  | "sandbox-probe"
  | "sandbox-mount-points"
  | "session-start-snapshot"
  | "login-refresh-failures"
  | "child-mcp"
  | "warm-children";

/** The process's value for `name` if something made it already; never makes it. */
export function perProcessIfMade<T>(name: PerProcessName): T | undefined {
  return (globalThis as typeof globalThis & Record<symbol, unknown>)[Symbol.for(`pi-subagent-dispatch.${name}`)] as
    | T
    | undefined;
}

/** The process's value for `name`, made by `create` on first use. */
export function perProcess<T>(name: PerProcessName, create: () => T): T {
  const key = Symbol.for(`pi-subagent-dispatch.${name}`);
  const holder = globalThis as typeof globalThis & Record<symbol, unknown>;
  if (!(key in holder)) holder[key] = create();
  return holder[key] as T;
}
