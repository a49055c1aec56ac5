/**
 * The roster's hooks as the light entry registers them. In a subagent at the nesting limit they return at once.
 * Otherwise, on the first `before_agent_start` (the working directory is known only then), the block comes from
 * the start-up cache when no agent file changed since it was remembered (roster-cache.ts), and is built by the
 * roster builder (agent discovery, frontmatter parsing: register.ts, imported then) when it did. Either way it is
 * kept for the life of this extension instance, as register.ts describes. The `context` hook (the roster beside
 * a delivered result, for pi 0.73.1) loads the builder only for a model call that holds a result.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.ts";
import { mayDispatchSubagents } from "../shared/depth.ts";
import { appendRoster } from "./append.ts";
import { cachedRoster, rememberRoster, rosterFingerprint } from "./roster-cache.ts";
import { loadOnce } from "../shared/load-once.ts";

type RosterModule = typeof import("./register.ts");
type RosterHandler = ReturnType<RosterModule["createRosterHandler"]>;

const loadRoster = loadOnce(() => import("./register.ts"));

/** The handler for a remembered block: the same answer the builder's handler gives for it. */
function rememberedHandler(block: string | undefined): RosterHandler {
  return (event) => (block === undefined ? undefined : { systemPrompt: appendRoster(event.systemPrompt, block) });
}

async function createHandler(cwd: unknown): Promise<RosterHandler> {
  const fingerprint = typeof cwd === "string" && cwd !== "" ? rosterFingerprint(cwd) : undefined;
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

export function registerRosterHook(pi: Pick<ExtensionAPI, "on">): void {
  let handler: Promise<RosterHandler | undefined> | undefined;
  // Settled once per instance: a failure leaves the prompt as it was, without retrying (as for any roster failure).
  const load = (cwd: unknown): Promise<RosterHandler | undefined> => {
    handler ??= createHandler(cwd).catch(() => undefined);
    return handler;
  };
  pi.on("before_agent_start", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env)) return undefined;
    return (await load(ctx.cwd))?.(event, ctx);
  });
  pi.on("context", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env) || !holdsResult(event.messages)) return undefined;
    const rosterHandler = await load(ctx.cwd);
    if (!rosterHandler) return undefined;
    try {
      return (await loadRoster()).createRosterContextHandler(rosterHandler)(event, ctx);
    } catch {
      return undefined;
    }
  });
}
