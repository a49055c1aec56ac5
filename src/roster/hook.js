// @ts-check
/**
 * The roster's hooks as the light entry registers them. In a subagent at the nesting limit they return at once.
 * Otherwise, on the first `before_agent_start` (the working directory is known only then), the block comes from
 * the start-up cache when no agent file changed since it was remembered (roster-cache.js), and is built by the
 * roster builder (agent discovery, frontmatter parsing: register.js, imported then) when it did. Either way it is
 * kept for the life of this extension instance, as register.js describes. The `context` hook (the roster beside
 * a delivered result, for pi 0.73.1) loads the builder only for a model call that holds a result.
 */
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.js";
import { mayDispatchSubagents } from "../shared/depth.js";
import { appendRoster } from "./append.js";
import { cachedRoster, rememberRoster, rosterFingerprint } from "./roster-cache.js";
import { loadOnce } from "../shared/load-once.js";

/** @typedef {typeof import("./register.js")} RosterModule */
/** @typedef {ReturnType<RosterModule["createRosterHandler"]>} RosterHandler */

/**
 * The handler for a remembered block: the same answer the builder's handler gives for it.
 * @param {string | undefined} block
 * @returns {RosterHandler}
 */
function rememberedHandler(block) {
  return (event) => (block === undefined ? undefined : { systemPrompt: appendRoster(event.systemPrompt, block) });
}

/**
 * @param {unknown} cwd
 * @param {() => Promise<RosterModule>} loadRoster
 * @returns {Promise<RosterHandler>}
 */
async function createHandler(cwd, loadRoster) {
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

/**
 * @param {ReadonlyArray<{ role?: unknown, customType?: unknown }>} messages
 * @returns {boolean}
 */
function holdsResult(messages) {
  return messages.some((message) => message.role === "custom" && message.customType === RESULT_CUSTOM_TYPE_NAME);
}

/**
 * @param {Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">} pi
 * @param {() => Promise<RosterModule>} importRoster Imports the roster builder (src/roster/register.js); called when
 *   the cache cannot answer (a parameter, so tests can count and fail the import).
 * @returns {void}
 */
export function registerRosterHook(pi, importRoster) {
  const loadRoster = loadOnce(importRoster);
  /** @type {Promise<RosterHandler | undefined> | undefined} */
  let handler;
  // Settled once per instance: a failure leaves the prompt as it was, without retrying (as for any roster failure).
  /**
   * @param {unknown} cwd
   * @returns {Promise<RosterHandler | undefined>}
   */
  const load = (cwd) => {
    handler ??= createHandler(cwd, loadRoster).catch(() => undefined);
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
