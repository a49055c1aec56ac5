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
