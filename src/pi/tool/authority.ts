/**
 * What the person allowed, read from pi and asked: the session's authority, the first-use gate, and the logins refreshed before a sandboxed hand-in.
 */
import { homedir } from "node:os";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import {
  withAuthorityAtStart,
  FIRST_USE_TITLE,
  firstUseDeclinedMessage,
  firstUseQuestion,
  firstUseRefusedUnaskedMessage,
  type PiTrust,
  type ProjectAuthority,
} from "../../authority/trust.ts";
import type { SessionTools } from "../../authority/tool-ceiling.ts";
import { readMainToolFlags } from "../../authority/tool-ceiling.ts";
import { childMcpPatterns } from "../../shared/nesting.ts";
import { guardedSinceStart, sessionStart, type SessionStart } from "../../authority/session-start-read.ts";
import { loadConfig, type LoadedConfig } from "../../config/load.ts";
import type { AgentDefinition } from "../../agents/parse.ts";
import { isApproved, rememberApproval } from "../../authority/first-use-approvals.ts";
import { readFileSync } from "node:fs";
import {
  loginRefreshFailedWarning,
  loginsDueForRefresh,
  readLoginRefreshMargin,
  withoutRecentFailures,
  type LoginRefreshFailure,
} from "../../sandbox/hand-in.ts";
import { perProcess } from "../../shared/this-process.ts";
import { reportWarningsOnce, type WarningSink } from "../../agents/warnings.ts";
import type { HandedSource } from "../../sandbox/handed-files.ts";
import type { LoginRefreshResult } from "./pi-login-refresh.ts";

/*
 * What this pi session may hand down, read from pi: its trust decision for the project as it was at the session's
 * start (pi 1.x `ctx.isProjectTrusted()`, the command line's `--approve`/`--no-approve`, the trust store and the
 * files pi guards, kept by src/authority/session-start-read.ts at pi's `session_start`), what of the guarded files
 * changed since, and its tools at this moment (`getActiveTools`, `getAllTools`). pi 0.73.1 has no trust system.
 */
/** The part of pi's context the trust decision is read from; `isProjectTrusted` exists on pi 1.x only. */
export interface TrustContext {
  cwd: string;
  isProjectTrusted?: () => boolean;
}

/** The session's start as kept (kept now when pi never announced it). */
export function sessionStartOf(ctx: TrustContext, argv: readonly string[], agentDir: string): SessionStart {
  const isProjectTrusted =
    typeof ctx.isProjectTrusted === "function" ? () => (ctx.isProjectTrusted as () => boolean)() : undefined;
  return sessionStart({
    cwd: ctx.cwd,
    agentDir,
    home: homedir(),
    argv,
    ...(isProjectTrusted ? { isProjectTrusted } : {}),
  });
}

/** pi's trust decision as it was at the session's start. */
export function readPiTrust(ctx: TrustContext, argv: readonly string[], agentDir: string): PiTrust {
  return sessionStartOf(ctx, argv, agentDir).trust;
}

/** The session's start and the guarded files that appeared or changed since. */
export function readSessionAuthority(
  ctx: TrustContext,
  argv: readonly string[],
  agentDir: string,
): { start: SessionStart; changedSinceStart: string[] } {
  const start = sessionStartOf(ctx, argv, agentDir);
  return { start, changedSinceStart: guardedSinceStart(start, homedir()) };
}

/** The config layers for a dispatch: the files now, but the person's authority settings as they were at the start. */
export function sessionConfig(
  cwd: string,
  trust: PiTrust,
  userAuthority: Readonly<Record<string, unknown>>,
): LoadedConfig {
  const loaded = loadConfig({ cwd, project: trust.kind !== "untrusted" });
  return { ...loaded, user: withAuthorityAtStart(loaded.user, userAuthority) };
}

/**
 * The session's tools now: what it may give a child, what a child without a tools list would get, and (pi 1.x)
 * what it reaches through MCP, from its command line `argv`. MCP, `codemode` and `tool_search` report themselves as
 * built-ins, so they never count as extension tools a child would get by default.
 */
export function readSessionTools(
  pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">,
  argv: readonly string[] = process.argv,
): SessionTools {
  const active = pi.getActiveTools();
  const extensionTools = pi
    .getAllTools()
    .filter((tool) => (tool.sourceInfo as { source?: unknown } | undefined)?.source !== "builtin")
    .map((tool) => tool.name);
  // `registerMcpServer` came with pi's MCP (pi 1.x); pi 0.73.1 has neither, and would refuse `--no-mcp`.
  const supported = typeof (pi as { registerMcpServer?: unknown }).registerMcpServer === "function";
  const flags = readMainToolFlags(argv.slice(2));
  // A subagent granted MCP tools was started with `--no-mcp` and runs MCP itself for them (src/pi/child-mcp.ts):
  // its `--tools` patterns are what it reaches.
  if (childMcpPatterns(process.env, argv) !== undefined) flags.noMcp = false;
  return { active, extensionTools, mcp: { supported, flags, active } };
}

/*
 * Whether a project agent may run now. pi's "no" was already applied (its agents are not discovered); here the
 * first-use rule: where pi has no decision, the TUI asks the person before the first run of each version of a
 * project agent's file, and a Yes is remembered for that exact text. Where nobody can be asked it is refused
 * (fail closed: a planted `.pi/agents/explore.md` must not run unasked in print mode). The question shows what the
 * file may do: its tools, its sandbox, the agent it replaces and the first lines of its prompt. Returns the
 * refusal, or undefined to go on.
 */
export interface GateContext {
  /** True in the interactive TUI, where a person can answer. */
  canAsk: boolean;
  ui: {
    confirm(title: string, message: string): Promise<boolean>;
    notify(message: string, type?: "info" | "warning" | "error"): void;
  };
  agentDir: string;
}

/** @param sandbox The sandbox it would run in, for the question (`read-only, from the agent's frontmatter`). */
export async function admitProjectAgent(
  agent: AgentDefinition,
  authority: ProjectAuthority,
  ctx: GateContext,
  sandbox: string,
): Promise<string | undefined> {
  if (agent.source !== "project" || authority.gate === "run") return undefined;
  const digest = agent.contentSha256;
  if (digest !== undefined && isApproved(ctx.agentDir, agent.filePath, digest)) return undefined;
  if (!ctx.canAsk) return firstUseRefusedUnaskedMessage(agent.name, agent.filePath);
  const approved = await ctx.ui.confirm(FIRST_USE_TITLE, firstUseQuestion({ agent, sandbox }));
  if (!approved) return firstUseDeclinedMessage(agent.name, agent.filePath);
  if (digest !== undefined) {
    try {
      await rememberApproval(ctx.agentDir, agent.filePath, digest, agent.name);
    } catch (error) {
      // The person said yes: the run goes on; only the memory of it is lost, and they are told.
      ctx.ui.notify(
        `pi-subagent-dispatch: could not remember the approval of ${agent.filePath} (${error instanceof Error ? error.message : String(error)}); you will be asked again`,
        "warning",
      );
    }
  }
  return undefined;
}

/*
 * Before a sandboxed child is handed its copy of `auth.json`: the parent renews the OAuth logins that end within
 * the margin (`PI_SUBAGENT_LOGIN_REFRESH_MARGIN_MS`), so the copy lasts the child's run. An unsandboxed child is
 * handed nothing and costs nothing here; a sandboxed one costs one read of the file unless a login is near its end.
 * A refresh that fails never holds the dispatch back: the child starts with the login as it is, and the person
 * reads one warning; that login is not tried again by this pi for five minutes.
 */
/** The person's `auth.json` a command hands its child a copy of, if it is a sandboxed child's. */
function loginFileOf(handIn: readonly HandedSource[] | undefined): string | undefined {
  for (const source of handIn ?? []) if (typeof source !== "string") return source.loginCopyOf;
  return undefined;
}

/**
 * How long a dispatch waits for one refresh: pi waits up to 30 s for its lock and 15 s (1.x) for a provider. A
 * refresh still going on after this goes on (and writes under the lock); the child starts without it.
 */
const REFRESH_WAIT_MS = 20_000;

function withinWait(refresh: Promise<LoginRefreshResult>): Promise<LoginRefreshResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<LoginRefreshResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: "failed", reason: `no answer within ${REFRESH_WAIT_MS / 1000} s` }),
      REFRESH_WAIT_MS,
    );
    timer.unref();
  });
  return Promise.race([refresh, late]).finally(() => clearTimeout(timer));
}

export interface LoginRefreshTarget {
  /** The agent, for the warning. */
  agent: string;
  /** What the child's command hands in (the login copy's source among them when it is sandboxed). */
  handIn: readonly HandedSource[] | undefined;
}

/**
 * Renews what `target`'s copy needs, through `registry` (the session's `ctx.modelRegistry`); reports failures to
 * `sink`. Never throws.
 */
export async function refreshLoginsBeforeHandIn(
  target: LoginRefreshTarget,
  registry: unknown,
  sink: WarningSink | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const authFile = loginFileOf(target.handIn);
  if (authFile === undefined) return;
  const marginMs = readLoginRefreshMargin(env);
  if (marginMs <= 0) return;
  let text: string;
  try {
    text = readFileSync(authFile, "utf8");
  } catch {
    return;
  }
  const failedAt = perProcess("login-refresh-failures", () => new Map<string, number>());
  const now = Date.now();
  const due = withoutRecentFailures(loginsDueForRefresh(text, now, marginMs), failedAt, now);
  if (due.length === 0) return;
  let refreshLoginWithPi: typeof import("./pi-login-refresh.ts").refreshLoginWithPi;
  try {
    ({ refreshLoginWithPi } = await import("./pi-login-refresh.ts"));
  } catch {
    return;
  }
  const failures: LoginRefreshFailure[] = [];
  // One after another: each takes pi's lock on the same file.
  for (const provider of due) {
    const result = await withinWait(refreshLoginWithPi(registry, authFile, provider, marginMs));
    if (result.kind === "failed") {
      failures.push({ provider, reason: result.reason });
      failedAt.set(provider, Date.now());
    } else failedAt.delete(provider);
  }
  if (failures.length > 0) reportWarningsOnce([loginRefreshFailedWarning(target.agent, failures)], sink);
}
