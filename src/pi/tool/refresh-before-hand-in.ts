/**
 * Before a sandboxed child is handed its copy of `auth.json`: the parent renews the OAuth logins that end within
 * the margin (`PI_SUBAGENT_LOGIN_REFRESH_MARGIN_MS`), so the copy lasts the child's run. An unsandboxed child is
 * handed nothing and costs nothing here; a sandboxed one costs one read of the file unless a login is near its end.
 * A refresh that fails never holds the dispatch back: the child starts with the login as it is, and the person
 * reads one warning; that login is not tried again by this pi for five minutes.
 */
import { readFileSync } from "node:fs";
import { loginRefreshFailedWarning, loginsDueForRefresh, readLoginRefreshMargin, withoutRecentFailures, type LoginRefreshFailure } from "../../sandbox/login-refresh.ts";
import { perProcess } from "../../shared/per-process.ts";
import { reportWarningsOnce, type WarningSink } from "../../agents/warnings.ts";
import type { HandedSource } from "../../sandbox/handed-files.ts";
import type { LoginRefreshResult } from "./pi-login-refresh.ts";

/** The person's `auth.json` a command hands its child a copy of, if it is a sandboxed child's. */
function loginFileOf(handIn: readonly HandedSource[] | undefined): string | undefined {
  for (const source of handIn ?? []) if (typeof source !== "string") return source.loginCopyOf;
  return undefined;
}

/**
 * How long a dispatch waits for one refresh: pi waits up to 30 s for its lock and 15 s (1.x) for a provider. A
 * refresh still going on after this goes on (and writes under the lock); the child starts without it.
 */
const REFRESH_WAIT_MS = 20_000;

function withinWait(refresh: Promise<LoginRefreshResult>): Promise<LoginRefreshResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<LoginRefreshResult>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "failed", reason: `no answer within ${REFRESH_WAIT_MS / 1000} s` }), REFRESH_WAIT_MS);
    timer.unref();
  });
  return Promise.race([refresh, late]).finally(() => clearTimeout(timer));
}

export interface LoginRefreshTarget {
  /** The agent, for the warning. */
  agent: string;
  /** What the child's command hands in (the login copy's source among them when it is sandboxed). */
  handIn: readonly HandedSource[] | undefined;
}

/**
 * Renews what `target`'s copy needs, through `registry` (the session's `ctx.modelRegistry`); reports failures to
 * `sink`. Never throws.
 */
export async function refreshLoginsBeforeHandIn(target: LoginRefreshTarget, registry: unknown, sink: WarningSink | undefined, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const authFile = loginFileOf(target.handIn);
  if (authFile === undefined) return;
  const marginMs = readLoginRefreshMargin(env);
  if (marginMs <= 0) return;
  let text: string;
  try {
    text = readFileSync(authFile, "utf8");
  } catch {
    return;
  }
  const failedAt = perProcess("login-refresh-failures", () => new Map<string, number>());
  const now = Date.now();
  const due = withoutRecentFailures(loginsDueForRefresh(text, now, marginMs), failedAt, now);
  if (due.length === 0) return;
  let refreshLoginWithPi: typeof import("./pi-login-refresh.ts").refreshLoginWithPi;
  try {
    ({ refreshLoginWithPi } = await import("./pi-login-refresh.ts"));
  } catch {
    return;
  }
  const failures: LoginRefreshFailure[] = [];
  // One after another: each takes pi's lock on the same file.
  for (const provider of due) {
    const result = await withinWait(refreshLoginWithPi(registry, authFile, provider, marginMs));
    if (result.kind === "failed") {
      failures.push({ provider, reason: result.reason });
      failedAt.set(provider, Date.now());
    } else failedAt.delete(provider);
  }
  if (failures.length > 0) reportWarningsOnce([loginRefreshFailedWarning(target.agent, failures)], sink);
}
