/**
 * Wires the roster into pi: on `before_agent_start` the main agent's system prompt gets the roster block at
 * its end. A handler builds its block once, on its first trigger (the working directory is only known then), and
 * keeps it in its closure; the light entry's hook (src/start/main-pi.ts) makes a new handler when the agent
 * files change, and pi runs the extension factory again on /reload, which builds a fresh one. Inside a
 * subagent at the nesting limit (PI_SUBAGENT_MAX_DEPTH) nothing is added. Whatever goes wrong, the prompt is left as it was and nothing is thrown.
 */
import type {
  BeforeAgentStartEvent,
  BeforeAgentStartEventResult,
  ContextEvent,
  ExtensionAPI,
} from "@mariozechner/pi-coding-agent";
import { discoverAgents, skippedProjectAgentsDirs } from "../agents/discover.ts";
import { readClaudeAgentsSetting } from "../agents/claude-agent.ts";
import type { DiscoveryResult } from "../agents/parse.ts";
import { formatAgentWarning, reportOnceByKey, reportWarningsOnce, type WarningSink } from "../agents/warnings.ts";
import { mayDispatchSubagents } from "../shared/nesting.ts";
import { appendRoster } from "../roster/roster-cache.ts";
import { buildRosterBlock, withRosterForResults } from "../roster/roster.ts";
import {
  decideProjectAuthority,
  readAuthoritySettings,
  projectSkippedNoticeFor,
  projectSkippedNoticeKey,
  withAuthorityAtStart,
  type ProjectAuthority,
} from "../authority/trust.ts";
import { readConfigLayer } from "../config/load.ts";
import { projectConfigPath, userConfigPath } from "../shared/config-paths.ts";
import { existsSync } from "node:fs";
import { agentDir } from "../shared/this-process.ts";
import { sessionStartOf, type TrustContext } from "./tool/authority.ts";

export interface RosterOptions {
  /**
   * Discovery for a working directory (default: the real tiers, scope `both`); `projectAgents` false when
   * the project's agents must not be listed (pi does not trust the project, or the person said never),
   * `claudeAgents` false when the person's `"$claudeAgents": false` turns Claude Code's folders off.
   */
  discover?: (cwd: string, projectAgents: boolean, claudeAgents: boolean) => DiscoveryResult;
  /** The environment that carries PI_SUBAGENT_DEPTH (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Told the block once it is built, with how many warnings discovery gave (the start-up cache keeps clean builds).
   */
  onBuilt?: (block: string | undefined, warnings: number) => void;
}

/** The part of pi's ExtensionContext the roster uses (`isProjectTrusted`: pi 1.x only). */
export type RosterContext = WarningSink & TrustContext & { sessionManager?: { getSessionId(): string } };

/** The path when a file is there, for naming what was left out. */
function existingFile(path: string | undefined): string | undefined {
  return path !== undefined && existsSync(path) ? path : undefined;
}

/**
 * Whether the project's agents are listed: pi's trust decision and the person's `$projectAgents`; and whether
 * Claude Code's folders are read (`$claudeAgents`).
 */
function rosterAuthority(ctx: RosterContext): { authority: ProjectAuthority; claudeAgents: boolean } {
  const dir = agentDir();
  // As at the session's start: `$projectAgents` from the user file as it was then.
  const start = sessionStartOf(ctx, process.argv, dir);
  const user = withAuthorityAtStart(readConfigLayer(userConfigPath(dir), "user"), start.userAuthority);
  return {
    authority: decideProjectAuthority(start.trust, readAuthoritySettings({ user, project: {} }).projectAgents),
    claudeAgents: readClaudeAgentsSetting({ user, project: {} }).enabled,
  };
}

export type RosterHandler = (
  event: Pick<BeforeAgentStartEvent, "systemPrompt">,
  ctx: RosterContext,
) => BeforeAgentStartEventResult | undefined;

/** The handler itself, separate from pi so tests can call it directly. */
export function createRosterHandler(options: RosterOptions = {}): RosterHandler {
  const discover =
    options.discover ??
    ((cwd: string, projectAgents: boolean, claudeAgents: boolean) =>
      discoverAgents({ cwd, projectAgents, claudeAgents }));
  let built = false;
  let block: string | undefined;

  const build = (ctx: RosterContext): string | undefined => {
    if (typeof ctx.cwd !== "string" || ctx.cwd === "") return undefined;
    const { authority, claudeAgents } = rosterAuthority(ctx);
    const discovery = discover(ctx.cwd, authority.projectAgents, claudeAgents);
    reportWarningsOnce(discovery.warnings.map(formatAgentWarning), ctx);
    const skippedDirs = skippedProjectAgentsDirs(discovery);
    if (authority.hiddenBecause && skippedDirs) {
      // The same notice the tool gives (its config file named too), shown once a session whichever comes first.
      const configFile = authority.hiddenBecause === "untrusted" ? existingFile(projectConfigPath(ctx.cwd)) : undefined;
      const notice = projectSkippedNoticeFor(authority, skippedDirs, configFile);
      if (notice) reportOnceByKey(projectSkippedNoticeKey(ctx.sessionManager?.getSessionId(), ctx.cwd), notice, ctx);
    }
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
 */
export function createRosterContextHandler(
  handler: RosterHandler,
): (
  event: { messages: ContextEvent["messages"] },
  ctx: RosterContext & { getSystemPrompt(): string },
) => { messages: ContextEvent["messages"] } | undefined {
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

export function registerRoster(pi: Pick<ExtensionAPI, "on">, options: RosterOptions = {}): void {
  const handler = createRosterHandler(options);
  const onContext = createRosterContextHandler(handler);
  pi.on("before_agent_start", (event, ctx) => handler(event, ctx));
  pi.on("context", (event, ctx) => onContext(event, ctx));
}
