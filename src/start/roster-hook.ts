/**
 * The roster's hooks as the light entry registers them. In a subagent at the nesting limit they return at once.
 * Otherwise, at each `before_agent_start` (the working directory is known only then), the fingerprint of what the
 * roster is built from is taken again (roster-cache.ts: a few directory listings and stats), so an agent file
 * added, changed or removed during the session is in the next turn's roster without /reload. While it is the
 * same, the block in hand is kept; when it changes (and at the first turn), the block comes from the start-up
 * cache when it knows the fingerprint, and is built by the roster builder (agent discovery, frontmatter parsing:
 * register.ts, imported then) when it does not. The `context` hook (the roster beside a delivered result, for pi
 * 0.73.1) loads the builder only for a model call that holds a result.
 */
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.ts";
import { mayDispatchSubagents } from "../shared/depth.ts";
import { appendRoster } from "../roster/append.ts";
import { cachedRoster, rememberRoster, rosterFingerprint } from "../roster/roster-cache.ts";
import { loadOnce } from "../shared/load-once.ts";

export type RosterModule = typeof import("../pi/roster.ts");
export type RosterHandler = ReturnType<RosterModule["createRosterHandler"]>;

/** The handler for a remembered block: the same answer the builder's handler gives for it. */
function rememberedHandler(block: string | undefined): RosterHandler {
  return (event) => (block === undefined ? undefined : { systemPrompt: appendRoster(event.systemPrompt, block) });
}

/** pi 1.x's trust decision for the session, as the roster depends on it; undefined on pi 0.73.1. */
function projectTrusted(ctx: { isProjectTrusted?: () => boolean }): boolean | undefined {
  try {
    return typeof ctx.isProjectTrusted === "function" ? ctx.isProjectTrusted() : undefined;
  } catch {
    return false;
  }
}

/** The fingerprint of the roster for this context, or undefined when it cannot be taken (no working directory). */
function fingerprintOf(ctx: { cwd?: unknown; isProjectTrusted?: () => boolean }): string | undefined {
  const cwd = ctx.cwd;
  if (typeof cwd !== "string" || cwd === "") return undefined;
  const trusted = projectTrusted(ctx);
  try {
    return rosterFingerprint(cwd, trusted === undefined ? {} : { projectTrusted: trusted });
  } catch {
    return undefined;
  }
}

async function createHandler(fingerprint: string | undefined, loadRoster: () => Promise<RosterModule>): Promise<RosterHandler> {
  const remembered = fingerprint === undefined ? undefined : cachedRoster(fingerprint);
  if (remembered) return rememberedHandler(remembered.block);
  const roster = await loadRoster();
  return roster.createRosterHandler({
    onBuilt: (block, warnings) => {
      if (fingerprint !== undefined && warnings === 0) void rememberRoster(fingerprint, block);
    },
  });
}

function holdsResult(messages: ReadonlyArray<{ role?: unknown; customType?: unknown }>): boolean {
  return messages.some((message) => message.role === "custom" && message.customType === RESULT_CUSTOM_TYPE_NAME);
}

/**
 * @param importRoster Imports the roster builder (src/pi/roster.ts); called when
 *   the cache cannot answer (a parameter, so tests can count and fail the import).
 */
export function registerRosterHook(pi: Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">, importRoster: () => Promise<RosterModule>): void {
  const loadRoster = loadOnce(importRoster);
  let current: { fingerprint: string | undefined; handler: Promise<RosterHandler | undefined> } | undefined;
  // A handler per fingerprint, settled once: a failure leaves the prompt as it was until the files change (as for
  // any roster failure). Without a fingerprint (no working directory) the handler in hand stays.
  const load = (ctx: { cwd?: unknown; isProjectTrusted?: () => boolean }): Promise<RosterHandler | undefined> => {
    const fingerprint = fingerprintOf(ctx);
    if (current && (fingerprint === undefined || fingerprint === current.fingerprint)) return current.handler;
    current = { fingerprint, handler: createHandler(fingerprint, loadRoster).catch(() => undefined) };
    return current.handler;
  };
  pi.on("before_agent_start", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env)) return undefined;
    return (await load(ctx))?.(event, ctx);
  });
  pi.on("context", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env) || !holdsResult(event.messages)) return undefined;
    const rosterHandler = await load(ctx);
    if (!rosterHandler) return undefined;
    try {
      return (await loadRoster()).createRosterContextHandler(rosterHandler)(event, ctx);
    } catch {
      return undefined;
    }
  });
}
