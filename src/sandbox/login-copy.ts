/**
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
    .filter(([, credential]) => credential?.type === "oauth" && typeof credential.expires === "number" && credential.expires > startedAt && credential.expires <= finishedAt + PI_RENEWAL_WINDOW_MS)
    .map(([provider]) => provider);
  if (expired.length === 0) return undefined;
  return `The OAuth login of ${expired.join(", ")} expired while this sandboxed subagent ran; a sandboxed child cannot refresh a login (it never writes your auth.json). Run the task again: your pi refreshes a login near its end before it starts a sandboxed subagent.`;
}
