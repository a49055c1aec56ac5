/**
 * What a sandboxed child may be handed (pure): its copy of the logins and which of them are refreshed first, and the package's modules it loads with the names jiti gives their entries.
 */
import { createHash, getFips } from "node:crypto";
import { basename, dirname } from "node:path";

/*
 * The sandboxed child's copy of the person's `auth.json`. Pure.
 *
 * The child gets API keys and current OAuth access tokens as they are, so it can call its model, but no OAuth
 * refresh token: a refresh token outlives the task and, with the providers that rotate it, a child's refresh would
 * end the person's own login. A login that expires while the child runs therefore fails in the child, and the
 * person's file is never written from inside a sandbox.
 */
/** The copy's text, or undefined for a file pi could not use either (the child then gets none). */
export function loginCopyText(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const copy: Record<string, unknown> = {};
  for (const [provider, credential] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof credential === "object" && credential !== null && (credential as { type?: unknown }).type === "oauth") {
      copy[provider] = { ...(credential as Record<string, unknown>), refresh: "" };
    } else copy[provider] = credential;
  }
  return JSON.stringify(copy, null, 2);
}

/**
 * How long before its end pi 1.x renews a login on its own (pi-ai's five-minute minimum validity): a child on pi 1.x
 * fails as soon as its copy's login is that close to its end, since it has no refresh token to renew it with.
 */
export const PI_RENEWAL_WINDOW_MS = 5 * 60_000;

/**
 * Said when a sandboxed child failed after an OAuth login of its copy ended during its run (`startedAt` to
 * `finishedAt`, ms), or came within pi's renewal window of its end: it could not refresh it, by design. `text` is
 * the person's `auth.json` as handed in. A login that had already ended before the child started is not named: the
 * person's pi did not use it either.
 */
export function loginExpiredNote(text: string, startedAt: number, finishedAt: number): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const expired = Object.entries(parsed as Record<string, { type?: unknown; expires?: unknown }>)
    .filter(
      ([, credential]) =>
        credential?.type === "oauth" &&
        typeof credential.expires === "number" &&
        credential.expires > startedAt &&
        credential.expires <= finishedAt + PI_RENEWAL_WINDOW_MS,
    )
    .map(([provider]) => provider);
  if (expired.length === 0) return undefined;
  return `The OAuth login of ${expired.join(", ")} expired while this sandboxed subagent ran; a sandboxed child cannot refresh a login (it never writes your auth.json). Run the task again: your pi refreshes a login near its end before it starts a sandboxed subagent.`;
}

/*
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
export function withoutRecentFailures(
  due: readonly string[],
  failedAt: ReadonlyMap<string, number>,
  now: number,
): string[] {
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

/**
 * The package's modules a sandboxed child loads, relative to the package root: a sandboxed pi gets at most the
 * `subagent` tool that refuses (extension.ts, src/start/sandbox-gate-tool.ts), so it loads the entry, the watch on
 * its parent, the depth variables, the tool's schema and texts, and nothing of the runtime (at the depth limit,
 * only the entry and the depth variables). Only these modules'
 * jiti entries are handed in (src/sandbox/handed-files.ts): a handful of files for bubblewrap to copy
 * instead of the whole package's. test/unit/architecture.test.ts checks the list against the imports; a module
 * missing here would only be compiled by the child, never be unsafe.
 */
export const SANDBOXED_CHILD_MODULES: readonly string[] = Object.freeze([
  "extension.ts",
  "src/run/parent-watchdog.ts",
  "src/shared/nesting.ts",
  "src/shared/proc-identity.ts",
  "src/shared/this-process.ts",
  "src/shared/thinking.ts",
  "src/start/sandbox-gate-tool.ts",
  "src/tool/schema.ts",
  "src/tool/texts.ts",
]);

/*
 * The names jiti (the loader pi runs TypeScript extensions with; 2.6 in pi 1.x, 2.7 in pi 0.73.1) gives a module's
 * entry in its file cache: `<parent folder>-<file name without extension>[.i].<first 8 hex of the md5 of the path,
 * sha256 under FIPS>.<mjs|cjs>`. An entry stays valid while it ends with the hash of its source, which jiti checks
 * on every read, so a stale copy only costs a compile. Should a later jiti name entries otherwise, no name here
 * is found and the sandboxed child compiles from scratch, as it did before: slower, never unsafe.
 */
/** jiti's own rule: the text before the last dot of the file name, unless that dot starts it. */
function stemOf(file: string): string {
  const name = basename(file);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? name : name.slice(0, dot);
}

function pathHash(file: string): string {
  return createHash(getFips() ? "sha256" : "md5")
    .update(file)
    .digest("hex")
    .slice(0, 8);
}

/**
 * The names jiti may have cached `file` under when pi's loader imports it (`jiti.import`, both pis: `.mjs`), with
 * and without jiti's interop marker. Entries of modules loaded with `require` (`.cjs`) are not looked for: pi
 * loads none of this package's that way.
 */
export function jitiCacheNames(file: string): string[] {
  const base = `${basename(dirname(file))}-${stemOf(file)}`;
  const hash = pathHash(file);
  return [`${base}.${hash}.mjs`, `${base}.i.${hash}.mjs`];
}
