// @ts-check
/**
 * Wires the roster into pi: on `before_agent_start` the main agent's system prompt gets the roster block at
 * its end. The block is built once, on the first trigger (the working directory is only known then), and kept
 * in this closure; pi runs the extension factory again on /reload, which builds a fresh one. Inside a
 * subagent at the nesting limit (PI_SUBAGENT_MAX_DEPTH) nothing is added. Whatever goes wrong, the prompt is left as it was and nothing is thrown.
 */
/** @import { BeforeAgentStartEvent, BeforeAgentStartEventResult, ContextEvent, ExtensionAPI } from "@mariozechner/pi-coding-agent" */
import { discoverAgents } from "../agents/discover.js";
/** @import { DiscoveryResult } from "../agents/types.ts" */
import { formatAgentWarning, reportWarningsOnce } from "../agents/warnings.js";
/** @import { WarningSink } from "../agents/warnings.js" */
import { mayDispatchSubagents } from "../shared/depth.js";
import { appendRoster } from "./append.js";
import { buildRosterBlock } from "./format.js";
import { withRosterForResults } from "./roster-for-results.js";

/**
 * @typedef {object} RosterOptions
 * @property {(cwd: string) => DiscoveryResult} [discover] Discovery for a working directory (default: the real three
 *   tiers, scope `both`).
 * @property {NodeJS.ProcessEnv} [env] The environment that carries PI_SUBAGENT_DEPTH (default: process.env).
 * @property {(block: string | undefined, warnings: number) => void} [onBuilt] Told the block once it is built, with
 *   how many warnings discovery gave (the start-up cache keeps clean builds).
 */

/**
 * The part of pi's ExtensionContext the roster uses.
 * @typedef {WarningSink & { cwd: string }} RosterContext
 */

/**
 * @typedef {(event: Pick<BeforeAgentStartEvent, "systemPrompt">, ctx: RosterContext) => BeforeAgentStartEventResult | undefined} RosterHandler
 */

/**
 * The handler itself, separate from pi so tests can call it directly.
 * @param {RosterOptions} [options]
 * @returns {RosterHandler}
 */
export function createRosterHandler(options = {}) {
  const discover = options.discover ?? ((/** @type {string} */ cwd) => discoverAgents({ cwd }));
  let built = false;
  /** @type {string | undefined} */
  let block;

  /**
   * @param {RosterContext} ctx
   * @returns {string | undefined}
   */
  const build = (ctx) => {
    if (typeof ctx.cwd !== "string" || ctx.cwd === "") return undefined;
    const discovery = discover(ctx.cwd);
    reportWarningsOnce(discovery.warnings.map(formatAgentWarning), ctx);
    const rosterBlock = buildRosterBlock(discovery.agents);
    options.onBuilt?.(rosterBlock, discovery.warnings.length);
    return rosterBlock;
  };

  return (event, ctx) => {
    try {
      if (!mayDispatchSubagents(options.env ?? process.env)) return undefined;
      if (!built) {
        // Settled before building: a failure stays an empty roster for this instance, without retrying.
        built = true;
        block = build(ctx);
      }
      if (block === undefined) return undefined;
      return { systemPrompt: appendRoster(event.systemPrompt, block) };
    } catch {
      return undefined;
    }
  };
}

/**
 * pi 0.73.1 runs no before_agent_start for a turn a message starts (a delivered result): such a turn keeps
 * the last system prompt, which in a fresh process (or after /reload) has no roster. The roster then rides
 * along with the result the model is about to digest; on pi 1.x, which runs the hook, the prompt has it.
 * @param {RosterHandler} handler
 * @returns {(event: { messages: ContextEvent["messages"] }, ctx: RosterContext & { getSystemPrompt(): string }) => { messages: ContextEvent["messages"] } | undefined}
 */
export function createRosterContextHandler(handler) {
  return (event, ctx) => {
    try {
      const rostered = handler({ systemPrompt: "" }, ctx);
      const block = rostered?.systemPrompt;
      if (!block) return undefined;
      const messages = withRosterForResults(event.messages, ctx.getSystemPrompt(), block);
      return messages ? { messages } : undefined;
    } catch {
      return undefined;
    }
  };
}

/**
 * @param {Pick<ExtensionAPI, "on">} pi
 * @param {RosterOptions} [options]
 * @returns {void}
 */
export function registerRoster(pi, options = {}) {
  const handler = createRosterHandler(options);
  const onContext = createRosterContextHandler(handler);
  pi.on("before_agent_start", (event, ctx) => handler(event, ctx));
  pi.on("context", (event, ctx) => onContext(event, ctx));
}
