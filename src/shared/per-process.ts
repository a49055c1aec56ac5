/**
 * The one home of state that outlives a load of the extension. pi evaluates the package's modules afresh at every
 * load (start-up, /reload, and on pi 1.x /new, /resume and /fork), so a module's own state ends with its load, as
 * pi's /reload contract wants. A few things belong to the process instead, and each is named here:
 * - "child-guard": the live child trees and exit hooks, and the one set of exit and signal listeners that ends them
 *   (src/run/child-guard.ts); a second set per load would see only its own children;
 * - "child-watch": whether this child pi already watches its parent (src/run/parent-watchdog.ts);
 * - "reported-warnings": agent-file warnings already shown (src/agents/warnings.ts), so a reload does not
 *   repeat them;
 * - "startup-sweep": whether the clean-up of a hard-killed pi's runs already ran, and when it has
 *   (src/delivery/startup-sweep-state.ts, used by src/start/register-startup-sweep.ts);
 * - "sandbox-probe": whether each bwrap found can make a sandbox (src/sandbox/find-bwrap.ts), tried once;
 * - "sandbox-mount-points": the number of this pi's last entry in the shared record of mount points
 *   (src/sandbox/mount-points.ts), so that two loads never name two claims alike;
 * - "session-start-snapshot": what the session's authority is decided from, as it was at its start
 *   (src/authority/start-snapshot.ts), kept by the start-up part at pi's `session_start` and read by the
 *   runtime, which is a later load of the modules;
 * - "login-refresh-failures": when each OAuth login's refresh last failed (src/pi/tool/refresh-before-hand-in.ts),
 *   so a /reload does not start the retry wait over.
 */
export type PerProcessName =
  | "child-guard"
  | "child-watch"
  | "reported-warnings"
  | "startup-sweep"
  | "sandbox-probe"
  | "sandbox-mount-points"
  | "session-start-snapshot"
  | "login-refresh-failures";

/** The process's value for `name`, made by `create` on first use. */
export function perProcess<T>(name: PerProcessName, create: () => T): T {
  const key = Symbol.for(`pi-subagent-dispatch.${name}`);
  const holder = globalThis as typeof globalThis & Record<symbol, unknown>;
  if (!(key in holder)) holder[key] = create();
  return holder[key] as T;
}
