/**
 * The sandbox levels, who set the one in force, and the texts that name them.
 */

/*
 * The three sandbox levels of a subagent and their order. A stricter level only ever replaces a looser one where
 * something other than the person's own user-level settings speaks (a project file, a call). Pure.
 */
/** `off` (no sandbox), `workspace-write` (the working folder writable), `read-only` (nothing of the person's writable). */
export type SandboxLevel = "off" | "workspace-write" | "read-only";

/** Where the level in force came from (src/config/resolve.ts decides it). */
export type SandboxSource =
  | "user"
  | "frontmatter"
  | "$sandbox"
  | "project"
  | "project $sandbox"
  | "call"
  | "default"
  | "resumed task";

export interface ResolvedSandbox {
  level: SandboxLevel;
  source: SandboxSource;
}

/** Loosest first. */
export const SANDBOX_LEVELS: readonly SandboxLevel[] = Object.freeze(["off", "workspace-write", "read-only"]);

export function isSandboxLevel(value: unknown): value is SandboxLevel {
  return typeof value === "string" && (SANDBOX_LEVELS as readonly string[]).includes(value);
}

/** The stricter of two levels. */
export function stricterLevel(a: SandboxLevel, b: SandboxLevel): SandboxLevel {
  return SANDBOX_LEVELS.indexOf(a) >= SANDBOX_LEVELS.indexOf(b) ? a : b;
}

/* What the model and the person read about sandboxes: the refusal when none can be made, the field's problems. */
const SANDBOX_FIX =
  'install bubblewrap (the `bwrap` command; Debian/Ubuntu: apt-get install bubblewrap, Fedora: dnf install bubblewrap) with user namespaces turned on, or set "sandbox: off" for this agent (its frontmatter, or its entry in your subagent-isolation.json) to run it without a sandbox';

/** Why no sandbox can be made here. */
export type SandboxUnavailable =
  | { kind: "platform"; platform: string }
  | { kind: "not-found"; dirs: readonly string[] }
  | { kind: "broken"; bwrap: string; detail: string };

function sandboxUnavailableReason(reason: SandboxUnavailable): string {
  if (reason.kind === "platform") return `sandboxes use bubblewrap, which needs Linux (this is ${reason.platform})`;
  if (reason.kind === "not-found")
    return `bwrap (bubblewrap) was not found in ${reason.dirs.join(", ")} (it is looked for only there, owned by root, never on PATH)`;
  return `${reason.bwrap} cannot make a sandbox here (are user namespaces turned off?): ${reason.detail}`;
}

/** The refusal: nothing was started, and the model must not try to get around it. */
export function sandboxRefusedMessage(agent: string, sandbox: ResolvedSandbox, reason: SandboxUnavailable): string {
  return `Cannot start the subagent "${agent}": it must run in a sandbox (sandbox: ${sandbox.level}, from ${sandboxSourceText(sandbox.source)}) and none can be made here: ${sandboxUnavailableReason(reason)}. Nothing was started. The fix is the person's: ${SANDBOX_FIX}. A call's sandbox: "off" cannot lift it.`;
}

/** A `workspace-write` child refused because a path it must not write is a link in its working folder. */
export function protectedLinkMessage(agent: string, links: readonly string[]): string {
  return `Cannot start the subagent "${agent}" with sandbox: workspace-write: ${links.join(", ")} ${links.length === 1 ? "is a link" : "are links"}, and a sandbox cannot keep a link from being replaced (a child could then plant what git or pi later runs). Nothing was started. Make ${links.length === 1 ? "it a file or folder of its own" : "each a file or folder of its own"}, or run the agent with sandbox: read-only.`;
}

export function sandboxSourceText(source: ResolvedSandbox["source"]): string {
  switch (source) {
    case "user":
      return "your subagent-isolation.json";
    case "frontmatter":
      return "the agent's frontmatter";
    case "$sandbox":
      return 'your "$sandbox" setting';
    case "project":
      return "the project's subagent-isolation.json";
    case "project $sandbox":
      return 'the project\'s "$sandbox" setting';
    case "call":
      return "this call";
    case "default":
      return "the default";
    case "resumed task":
      return "the task it resumes, which ran in it";
  }
}

export function invalidSandboxMessage(value: unknown): string {
  return `Invalid sandbox ${JSON.stringify(value)?.slice(0, 80)}: use one of ${SANDBOX_LEVELS.join(", ")} (a call can only make the agent's sandbox stricter).`;
}

/** After a mistyped level in the person's or a project's files: fail closed, never no sandbox. */
export const UNKNOWN_LEVEL_READ_ONLY = "the agent runs read-only until that is fixed";

export function sandboxValueProblem(value: unknown): string {
  return `"sandbox" must be one of ${SANDBOX_LEVELS.join(", ")} (got ${JSON.stringify(value)?.slice(0, 80)})`;
}
