/**
 * Which OAuth logins the parent refreshes before a sandboxed child gets its copy of `auth.json`, and what the
 * person reads when that fails. Pure.
 *
 * The child's copy has no refresh token (`login-copy.ts`), so a login that expires during its run cannot be renewed
 * there. The parent, which may write the person's file, renews the logins near their end first.
 */

export const LOGIN_REFRESH_MARGIN_ENV = "PI_SUBAGENT_LOGIN_REFRESH_MARGIN_MS";

/**
 * 15 minutes: most delegations end well within it, and it stays under the shortest token lifetimes pi's providers
 * hand out (about 30 minutes), so a fresh login is never renewed again at the next dispatch.
 */
export const DEFAULT_LOGIN_REFRESH_MARGIN_MS = 15 * 60_000;

/** The margin from the environment: a whole number of ms; 0 or less turns the refresh off; anything else the default. */
export function readLoginRefreshMargin(env: NodeJS.ProcessEnv): number {
  const raw = env[LOGIN_REFRESH_MARGIN_ENV]?.trim();
  if (raw === undefined || raw === "") return DEFAULT_LOGIN_REFRESH_MARGIN_MS;
  const value = Number(raw);
  if (!Number.isFinite(value)) return DEFAULT_LOGIN_REFRESH_MARGIN_MS;
  return Math.max(0, Math.trunc(value));
}

/**
 * The providers whose OAuth login in `authText` (the person's `auth.json`) ends within `marginMs` of `now`, or has
 * ended: each with a refresh token to renew it by. None for a margin of 0 or a file pi could not read either.
 */
export function loginsDueForRefresh(authText: string, now: number, marginMs: number): string[] {
  if (marginMs <= 0) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(authText.replace(/^\uFEFF/, ""));
  } catch {
    return [];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return [];
  const due: string[] = [];
  for (const [provider, credential] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof credential !== "object" || credential === null) continue;
    const { type, refresh, expires } = credential as { type?: unknown; refresh?: unknown; expires?: unknown };
    if (type !== "oauth" || typeof refresh !== "string" || refresh === "") continue;
    if (typeof expires !== "number" || !Number.isFinite(expires)) continue;
    if (expires - now <= marginMs) due.push(provider);
  }
  return due;
}

/**
 * How long a login whose refresh failed is not tried again by this pi: a login server that is down, or a stale
 * login of a provider the person no longer uses, must not cost every dispatch a wait (up to 20 s each).
 */
export const LOGIN_RETRY_AFTER_MS = 5 * 60_000;

/** `due` without the providers whose refresh failed (`failedAt`, ms) less than `LOGIN_RETRY_AFTER_MS` before `now`. */
export function withoutRecentFailures(due: readonly string[], failedAt: ReadonlyMap<string, number>, now: number): string[] {
  return due.filter((provider) => {
    const at = failedAt.get(provider);
    return at === undefined || now - at >= LOGIN_RETRY_AFTER_MS;
  });
}

/** One login the parent could not renew, and pi's reason. */
export interface LoginRefreshFailure {
  provider: string;
  reason: string;
}

/** The one warning for logins that could not be renewed: the child starts all the same, with the login as it is. */
export function loginRefreshFailedWarning(agent: string, failures: readonly LoginRefreshFailure[]): string {
  const what = failures.map((failure) => `${failure.provider} (${failure.reason})`).join(", ");
  return `pi-subagent-dispatch: ${agent}: could not refresh the OAuth login of ${what} before the sandboxed subagent started; it runs with the current login, and fails with a note if that login expires during its run.`;
}
