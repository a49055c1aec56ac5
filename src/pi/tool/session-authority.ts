/**
 * What this pi session may hand down, read from pi: its trust decision for the project as it was at the session's
 * start (pi 1.x `ctx.isProjectTrusted()`, the command line's `--approve`/`--no-approve`, the trust store and the
 * files pi guards, kept by src/authority/session-start-read.ts at pi's `session_start`), what of the guarded files
 * changed since, and its tools at this moment (`getActiveTools`, `getAllTools`). pi 0.73.1 has no trust system.
 */
import { homedir } from "node:os";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { PiTrust } from "../../authority/project-trust.ts";
import type { SessionTools } from "../../authority/tool-ceiling.ts";
import { withAuthorityAtStart } from "../../authority/session-start.ts";
import { guardedSinceStart, sessionStart } from "../../authority/session-start-read.ts";
import { loadConfig } from "../../config/load.ts";
import type { LoadedConfig } from "../../config/load.ts";
import type { SessionStart } from "../../authority/session-start-read.ts";

/** The part of pi's context the trust decision is read from; `isProjectTrusted` exists on pi 1.x only. */
export interface TrustContext {
  cwd: string;
  isProjectTrusted?: () => boolean;
}

/** The session's start as kept (kept now when pi never announced it). */
export function sessionStartOf(ctx: TrustContext, argv: readonly string[], agentDir: string): SessionStart {
  const isProjectTrusted = typeof ctx.isProjectTrusted === "function" ? () => (ctx.isProjectTrusted as () => boolean)() : undefined;
  return sessionStart({ cwd: ctx.cwd, agentDir, home: homedir(), argv, ...(isProjectTrusted ? { isProjectTrusted } : {}) });
}

/** pi's trust decision as it was at the session's start. */
export function readPiTrust(ctx: TrustContext, argv: readonly string[], agentDir: string): PiTrust {
  return sessionStartOf(ctx, argv, agentDir).trust;
}

/** The session's start and the guarded files that appeared or changed since. */
export function readSessionAuthority(ctx: TrustContext, argv: readonly string[], agentDir: string): { start: SessionStart; changedSinceStart: string[] } {
  const start = sessionStartOf(ctx, argv, agentDir);
  return { start, changedSinceStart: guardedSinceStart(start, homedir()) };
}

/** The config layers for a dispatch: the files now, but the person's authority settings as they were at the start. */
export function sessionConfig(cwd: string, trust: PiTrust, userAuthority: Readonly<Record<string, unknown>>): LoadedConfig {
  const loaded = loadConfig({ cwd, project: trust.kind !== "untrusted" });
  return { ...loaded, user: withAuthorityAtStart(loaded.user, userAuthority) };
}

/** The session's tools now: what it may give a child, and what a child without a tools list would get. */
export function readSessionTools(pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">): SessionTools {
  const active = pi.getActiveTools();
  const extensionTools = pi
    .getAllTools()
    .filter((tool) => (tool.sourceInfo as { source?: unknown } | undefined)?.source !== "builtin")
    .map((tool) => tool.name);
  return { active, extensionTools };
}
