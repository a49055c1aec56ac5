/**
 * Renewing one OAuth login through the pi this package runs in, under pi's own lock on `auth.json`, so that the
 * person's pi and every other pi see the new login (and a provider that rotates refresh tokens is asked once).
 * Loaded only when a login is near its end. pi refreshes a login on its own only when it has ended (0.73.1) or
 * within five minutes of its end (1.x); a sandboxed child needs one that lasts its run, so this asks earlier.
 *
 * - pi 1.x: `ModelRuntime.getAuth(provider, { minOAuthValidityMs })`, the call pi's own `getProviderAuth` makes,
 *   with the option pi declares for a caller that needs a login to last. The runtime is the registry's one field
 *   (`ModelRegistry` is a facade over it, private to TypeScript only); pi re-checks the expiry under the lock,
 *   refreshes through the provider (built-in or registered by an extension) and writes the file before unlocking.
 * - pi 0.73.1: its `refreshOAuthTokenWithLock` is private and refreshes only an ended login, so the same steps with
 *   its public parts: `FileAuthStorageBackend.withLockAsync` on the same file (the same lock file as pi's), the
 *   expiry checked again under it, the provider's `refreshToken` from `authStorage.getOAuthProviders()` (extensions'
 *   providers included), the file written with the lock held, then `authStorage.reload()` for this session.
 */
import * as piPackage from "@mariozechner/pi-coding-agent";

/** The OAuth provider as pi 0.73.1 lists it. */
interface LegacyOAuthProvider {
  id: string;
  refreshToken(credentials: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** pi 0.73.1's session credentials, as much of them as is used here. */
interface LegacyAuthStorage {
  getOAuthProviders(): LegacyOAuthProvider[];
  reload(): void;
}

/** pi 0.73.1's file backend: the lock pi itself takes around every read and write of `auth.json`. */
type LockedFile = new (
  authPath: string,
) => {
  withLockAsync<T>(fn: (current: string | undefined) => Promise<{ result: T; next?: string }>): Promise<T>;
};

/** pi 1.x's model runtime, as much of it as is used here. */
interface ModelRuntimeLike {
  getAuth(provider: string, overrides: { minOAuthValidityMs: number }): Promise<unknown>;
}

/** What a refresh came to: renewed (or found renewed by another pi), not pi's to renew, or failed with a reason. */
export type LoginRefreshResult =
  | { kind: "renewed" }
  | { kind: "unknown-provider" }
  | { kind: "failed"; reason: string };

function isFunction(value: unknown): value is (...args: never[]) => unknown {
  return typeof value === "function";
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** The innermost message: pi wraps a provider's error ("OAuth refresh failed for x") around the cause. */
function reasonOf(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error && current.cause instanceof Error; depth++)
    current = current.cause;
  const message = current instanceof Error ? current.message : String(current);
  return message.split("\n")[0]?.slice(0, 200) || "unknown error";
}

function isDue(credential: unknown, marginMs: number): boolean {
  const expires = field(credential, "expires");
  return field(credential, "type") === "oauth" && typeof expires === "number" && expires - Date.now() <= marginMs;
}

async function refreshLegacy(
  storage: LegacyAuthStorage,
  authFile: string,
  provider: string,
  marginMs: number,
): Promise<LoginRefreshResult> {
  const oauth = storage.getOAuthProviders().find((candidate) => candidate.id === provider);
  // The namespace import, since pi 1.x has no such export (and takes the other path before this).
  const Backend = (piPackage as unknown as { FileAuthStorageBackend?: LockedFile }).FileAuthStorageBackend;
  if (!oauth || !Backend) return { kind: "unknown-provider" };
  await new Backend(authFile).withLockAsync(async (current) => {
    const data = (current ? JSON.parse(current.replace(/^\uFEFF/, "")) : {}) as Record<string, unknown>;
    const credential = data[provider];
    // Another pi may have renewed it while this one waited for the lock.
    if (!isDue(credential, marginMs)) return { result: undefined };
    const renewed = await oauth.refreshToken(credential as Record<string, unknown>);
    return { result: undefined, next: JSON.stringify({ ...data, [provider]: { type: "oauth", ...renewed } }, null, 2) };
  });
  storage.reload();
  return { kind: "renewed" };
}

/**
 * Renews `provider`'s login in `authFile` (the person's `auth.json`) if it still ends within `marginMs` once pi's
 * lock is held. `registry` is the session's `ctx.modelRegistry`. Never throws: a failure is a result.
 */
export async function refreshLoginWithPi(
  registry: unknown,
  authFile: string,
  provider: string,
  marginMs: number,
): Promise<LoginRefreshResult> {
  try {
    const storage = field(registry, "authStorage");
    if (isFunction(field(storage, "getOAuthProviders")) && isFunction(field(storage, "reload"))) {
      return await refreshLegacy(storage as LegacyAuthStorage, authFile, provider, marginMs);
    }
    const runtime = field(registry, "runtime");
    const getProvider = field(registry, "getProvider");
    if (!isFunction(field(runtime, "getAuth")) || !isFunction(getProvider)) return { kind: "unknown-provider" };
    const known = (getProvider as (id: string) => unknown).call(registry, provider);
    if (field(field(known, "auth"), "oauth") === undefined) return { kind: "unknown-provider" };
    await (runtime as ModelRuntimeLike).getAuth(provider, { minOAuthValidityMs: marginMs });
    return { kind: "renewed" };
  } catch (error) {
    return { kind: "failed", reason: reasonOf(error) };
  }
}
