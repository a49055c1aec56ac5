/**
 * What the person allows (pure): pi's trust decision and `$projectAgents`, the two user-only settings, trust at the session's start, and the texts.
 */
import type { ConfigLayer } from "../config/load.ts";
import { parseToolCeiling, type ToolCeilingSetting } from "./tool-ceiling.ts";
import type { AgentDefinition } from "../agents/parse.ts";
import { stripTerminalControls } from "../shared/text.ts";

/*
 * What a project may make a subagent do, from pi's trust decision and the person's user-level setting. pi 1.x
 * decides whether this session trusts the project (`--approve`, `/trust`, trust.json, `defaultProjectTrust`);
 * an untrusted project's agents and subagent-isolation.json count for nothing, and every child gets the same
 * decision on its command line. Where pi has no decision (pi 0.73.1, which has no trust system, and pi 1.x
 * projects it trusts only because they hold nothing it guards), a project agent is trusted on first use: the
 * person is asked once per version of the file in the TUI, and where nobody can be asked it does not run. Pure.
 */
/** pi's decision for this session's project, as far as it can be known. */
export type PiTrust =
  | { kind: "no-trust-system" }
  | { kind: "untrusted" }
  /** `explicit`: decided (a flag, a saved answer, an extension, `defaultProjectTrust`, the person's answer); else implied by a folder with nothing pi guards. */
  | { kind: "trusted"; explicit: boolean };

/**
 * `$projectAgents` in the user-level subagent-isolation.json (a project file cannot set it):
 * - `ask` (default): where pi has no decision, the TUI asks before the first run of each version of a project
 *   agent; where nobody can be asked (print, JSON, RPC) it is refused, unless the person approved that version
 *   before (a planted agent must not run unasked);
 * - `ask-or-refuse`: the same (the older name, from when `ask` ran unasked where nobody could answer);
 * - `always`: project agents run without a question (pi's "no" still holds);
 * - `never`: project agents are never listed or run.
 */
export type ProjectAgentsPolicy = "ask" | "ask-or-refuse" | "always" | "never";
const DEFAULT_PROJECT_AGENTS_POLICY: ProjectAgentsPolicy = "ask";

/** How a project agent's run is gated. `first-use`: asked in the TUI, refused where nobody can be asked (print, JSON, RPC, a nested child). */
export type ProjectAgentGate = "run" | "first-use";

export interface ProjectAuthority {
  /** Whether the project's subagent-isolation.json counts. */
  projectConfig: boolean;
  /** Whether the project's agents are listed and dispatchable at all. */
  projectAgents: boolean;
  /** Why they are not, for the notice and the refusal: pi's decision or the person's setting. */
  hiddenBecause?: "untrusted" | "policy";
  gate: ProjectAgentGate;
  /** The flag every child gets so that it sees the project as this session does (pi 1.x only). */
  childTrustFlag?: "--approve" | "--no-approve";
  /**
   * Files pi guards that appeared or changed since the session's start: no decision of the person's covers them, so
   * a pi 1.x child gets `--no-approve`, and on pi 0.73.1 (which would load them unasked) no child starts.
   */
  changedSinceStart?: string[];
}

function parseProjectAgentsPolicy(raw: unknown): ProjectAgentsPolicy | undefined {
  return raw === "ask" || raw === "ask-or-refuse" || raw === "always" || raw === "never" ? raw : undefined;
}

/**
 * @param trust pi's decision as it was at the session's start (src/authority/trust.ts).
 * @param changedSinceStart the files pi guards that appeared or changed since then.
 */
export function decideProjectAuthority(
  trust: PiTrust,
  policy: ProjectAgentsPolicy = DEFAULT_PROJECT_AGENTS_POLICY,
  changedSinceStart: readonly string[] = [],
): ProjectAuthority {
  const changed = changedSinceStart.length > 0 ? { changedSinceStart: [...changedSinceStart] } : {};
  if (trust.kind === "untrusted") {
    return {
      projectConfig: false,
      projectAgents: false,
      hiddenBecause: "untrusted",
      gate: "run",
      childTrustFlag: "--no-approve",
      ...changed,
    };
  }
  // The person's decision covers what was there at the start. A guarded file that appeared since (a
  // `.pi/extensions/` one a task wrote, say) is covered by none: the child is told "no". An implied trust with
  // nothing new is not passed on: the child decides afresh, as this session did, and finds the same.
  let childTrustFlag: ProjectAuthority["childTrustFlag"];
  if (trust.kind === "trusted")
    childTrustFlag = changedSinceStart.length > 0 ? "--no-approve" : trust.explicit ? "--approve" : undefined;
  const base: Pick<ProjectAuthority, "projectConfig" | "childTrustFlag" | "changedSinceStart"> = {
    projectConfig: true,
    ...(childTrustFlag ? { childTrustFlag } : {}),
    ...changed,
  };
  if (policy === "never") return { ...base, projectAgents: false, hiddenBecause: "policy", gate: "run" };
  const piDecided = trust.kind === "trusted" && trust.explicit;
  if (piDecided || policy === "always") return { ...base, projectAgents: true, gate: "run" };
  return { ...base, projectAgents: true, gate: "first-use" };
}

/*
 * The two settings that widen what a subagent may do, `$projectAgents` and `$toolCeiling`. Only the person's
 * user-level subagent-isolation.json can set them: a project file that tries is ignored, with a warning, since
 * a repository must not lift the limits that guard the person from it. Pure.
 */
const PROJECT_AGENTS_KEY = "$projectAgents";
const TOOL_CEILING_KEY = "$toolCeiling";

export interface AuthoritySettings {
  projectAgents: ProjectAgentsPolicy;
  toolCeiling: ToolCeilingSetting;
  warnings: string[];
}

type Layer = Pick<ConfigLayer, "settings" | "filePath">;

function where(layer: Layer, name: string): string {
  return `pi-subagent-dispatch: ${layer.filePath ?? `${name} subagent-isolation.json`}`;
}

export function readAuthoritySettings(layers: { user: Layer; project: Layer }): AuthoritySettings {
  const warnings: string[] = [];
  const user = layers.user.settings ?? {};
  let projectAgents = DEFAULT_PROJECT_AGENTS_POLICY;
  let toolCeiling: ToolCeilingSetting = "session";
  if (Object.hasOwn(user, PROJECT_AGENTS_KEY)) {
    const value = parseProjectAgentsPolicy(user[PROJECT_AGENTS_KEY]);
    if (value) projectAgents = value;
    else
      warnings.push(
        `${where(layers.user, "user")}: "${PROJECT_AGENTS_KEY}" must be "ask", "ask-or-refuse", "always" or "never"; using "ask"`,
      );
  }
  if (Object.hasOwn(user, TOOL_CEILING_KEY)) {
    const value = parseToolCeiling(user[TOOL_CEILING_KEY]);
    if (value) toolCeiling = value;
    else
      warnings.push(
        `${where(layers.user, "user")}: "${TOOL_CEILING_KEY}" must be "session" or "off"; the ceiling holds`,
      );
  }
  const project = layers.project.settings ?? {};
  for (const key of [PROJECT_AGENTS_KEY, TOOL_CEILING_KEY]) {
    if (Object.hasOwn(project, key))
      warnings.push(
        `${where(layers.project, "project")}: "${key}" can only be set in your user-level subagent-isolation.json; ignored`,
      );
  }
  return { projectAgents, toolCeiling, warnings };
}

/*
 * Authority decided once, at the session's start: what pi's trust decision was then (and whether it was a
 * decision or only implied), which files pi guards existed then, and the person's authority settings as their
 * user file said then. Files that appear during the session (a child can write them) never change any of it:
 * a planted `.pi/extensions/x.ts` cannot turn an implied trust into an explicit one, and a `"$toolCeiling": "off"`
 * written by a session without bash does not give its next child bash. Pure.
 */
/**
 * The user-file settings read once per session (the rest of the file, agents' models and budgets, is read at each
 * dispatch, since /subagent-config, the person's own editor, changes it during the session).
 */
const AUTHORITY_SETTING_KEYS: readonly string[] = Object.freeze([
  "$toolCeiling",
  "$projectAgents",
  "$sandbox",
  "$sandboxHide",
  "$askPerson",
  "$claudeAgents",
]);

/** pi 1.x's state at the session's start, as read from its command line, its trust store and the folder. */
export interface TrustInputsAtStart {
  /** `ctx.isProjectTrusted()` at the start; undefined on pi 0.73.1 (no trust system). */
  piTrusted?: boolean;
  /** The last of `--approve` / `--no-approve` on pi's command line. */
  flag?: "--approve" | "--no-approve";
  /** The trust store's saved decision for the folder (or its nearest parent), as it was at the start. */
  saved: boolean | null;
  /** Whether the folder held anything pi guards at the start. */
  guarded: boolean;
}

/** The trust decision at the start: a decision (a flag, a saved answer, guarded files pi loaded) or only implied. */
export function trustAtStart(inputs: TrustInputsAtStart): PiTrust {
  if (inputs.piTrusted === undefined) return { kind: "no-trust-system" };
  if (!inputs.piTrusted) return { kind: "untrusted" };
  const explicit = inputs.flag === "--approve" || inputs.guarded || inputs.saved === true;
  return { kind: "trusted", explicit };
}

/** The last trust flag on a command line, as pi reads it. */
export function trustFlagOf(argv: readonly string[]): "--approve" | "--no-approve" | undefined {
  let flag: "--approve" | "--no-approve" | undefined;
  for (const arg of argv) if (arg === "--approve" || arg === "--no-approve") flag = arg;
  return flag;
}

/** The user layer with its authority settings as they were at the start (absent there: absent now). */
export function withAuthorityAtStart(
  current: ConfigLayer,
  atStart: Readonly<Record<string, unknown>> | undefined,
): ConfigLayer {
  if (atStart === undefined) return current;
  const settings: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(current.settings ?? {}))
    if (!AUTHORITY_SETTING_KEYS.includes(key)) settings[key] = value;
  for (const key of AUTHORITY_SETTING_KEYS) if (Object.hasOwn(atStart, key)) settings[key] = atStart[key];
  return { ...current, settings };
}

/** The authority settings of a user layer, to keep for the session. */
export function authoritySettingsOf(layer: Pick<ConfigLayer, "settings">): Record<string, unknown> {
  const kept: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of AUTHORITY_SETTING_KEYS)
    if (layer.settings && Object.hasOwn(layer.settings, key)) kept[key] = layer.settings[key];
  return kept;
}

/* What the person and the model read about project trust and the tool ceiling. */
export const TRUST_HOW_TO = "to use them, trust the project: start pi with --approve, or run /trust";

/** Once per session, when something of the project's was left out. */
function projectSkippedNotice(
  hiddenBecause: NonNullable<ProjectAuthority["hiddenBecause"]>,
  skipped: readonly string[],
): string {
  const what = skipped.join(" and ");
  if (hiddenBecause === "policy")
    return `pi-subagent-dispatch: project agents are turned off ("$projectAgents": "never" in your subagent-isolation.json): not using ${what}`;
  return `pi-subagent-dispatch: this project is not trusted, so its subagent files are not used (${what}); ${TRUST_HOW_TO}`;
}

/**
 * The notice naming what of the project's was left out (its agents folder, and in an untrusted project its
 * subagent-isolation.json), or undefined when nothing was. The roster and the tool build it alike, so the person
 * reads one notice, whichever path meets the project first.
 */
export function projectSkippedNoticeFor(
  authority: ProjectAuthority,
  agentsDir: string | undefined,
  configFile: string | undefined,
): string | undefined {
  if (!authority.hiddenBecause) return undefined;
  const skipped = [
    agentsDir ? `${agentsDir}/` : undefined,
    authority.hiddenBecause === "untrusted" ? configFile : undefined,
  ].filter((item) => item !== undefined);
  return skipped.length > 0 ? projectSkippedNotice(authority.hiddenBecause, skipped) : undefined;
}

/** What keys the notice's once-only report: one notice per session and project. */
export function projectSkippedNoticeKey(sessionId: string | undefined, cwd: string): string {
  return `project-skipped:${sessionId ?? ""}:${cwd}`;
}

/** Added to an unknown-agent refusal when the project's agents were left out. */
export function projectAgentsHiddenNote(hiddenBecause: NonNullable<ProjectAuthority["hiddenBecause"]>): string {
  if (hiddenBecause === "policy")
    return ` The project's agents are turned off by the person's setting ("$projectAgents": "never"); do not retry with them.`;
  return ` The project's agents are not available because this project is not trusted in this session (${TRUST_HOW_TO}; only the person can do that).`;
}

export const FIRST_USE_TITLE = "Run a project agent?";

/** How many lines of the agent's prompt the first-use question shows, and how long each may be. */
const PROMPT_LINES = 4;
const PROMPT_LINE_CHARS = 100;

/** What the question shows of the file: what it may do, and what it is told. */
export interface FirstUseFacts {
  agent: Pick<AgentDefinition, "name" | "filePath" | "tools" | "body" | "shadows" | "verify" | "mcp">;
  /** The sandbox it would run in, and who decided it (`read-only, from the agent's frontmatter`). */
  sandbox: string;
}

function clip(line: string): string {
  const clean = stripTerminalControls(line).trim();
  return clean.length > PROMPT_LINE_CHARS ? `${clean.slice(0, PROMPT_LINE_CHARS - 1)}…` : clean;
}

export function firstUseQuestion(facts: FirstUseFacts): string {
  const { agent } = facts;
  const tools =
    agent.tools === undefined
      ? "pi's defaults (read, bash, edit, write) and every extension tool"
      : agent.tools.length === 0
        ? "none"
        : agent.tools.join(", ");
  const lines = agent.body
    .split("\n")
    .map(clip)
    .filter((line) => line !== "");
  const prompt = lines.slice(0, PROMPT_LINES).map((line) => `  ${line}`);
  if (lines.length > PROMPT_LINES) prompt.push(`  … (${lines.length - PROMPT_LINES} more lines in the file)`);
  const replaces = agent.shadows
    ? [
        `Replaces: the ${agent.shadows.source === "builtin" ? "built-in" : "user"} agent "${agent.shadows.name}" (it keeps that agent's sandbox at least and its tools at most)`,
      ]
    : [];
  return [
    `The model wants to run the subagent "${clip(agent.name)}", defined by this project in ${clip(agent.filePath)}. pi has no trust decision for this project, so you are asked once for each version of this file.`,
    `Tools: ${clip(tools)}`,
    ...(agent.mcp?.length
      ? [`MCP servers: ${clip(agent.mcp.join(", "))} (pi 1.x, where the main session reaches them)`]
      : []),
    `Sandbox: ${facts.sandbox}`,
    // A check command runs when its child ends, in the child's folder and sandbox: the person sees it before a Yes.
    ...(agent.verify ? [`Verify: ${clip(agent.verify)}`] : []),
    ...replaces,
    "Prompt:",
    ...(prompt.length > 0 ? prompt : ["  (empty)"]),
    "Run it?",
  ].join("\n");
}

export function firstUseDeclinedMessage(name: string, filePath: string): string {
  return `The person declined to run the project agent "${name}" (${filePath}). Do not retry it; use another agent or do the work without it, or ask the person.`;
}

export function firstUseRefusedUnaskedMessage(name: string, filePath: string): string {
  return `The project agent "${name}" (${filePath}) runs only after the person approves it in the interactive TUI, and nobody can be asked here. Use another agent. (The person can approve it once in the TUI, or allow project agents with "$projectAgents": "always" in their subagent-isolation.json or, on pi 1.x, by trusting the project.)`;
}

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).map((path) => stripTerminalControls(path));
  return paths.length > 3 ? `${shown.join(", ")} and ${paths.length - 3} more` : shown.join(", ");
}

/** Once per session (pi 1.x): guarded files appeared since the start, so children are told "no". */
export function guardedChangedNotice(paths: readonly string[]): string {
  return `pi-subagent-dispatch: files pi guards by project trust appeared or changed since this session started (${listed(paths)}); no decision of yours covers them, so subagents see this project as untrusted (--no-approve) until pi starts again`;
}

/** pi 0.73.1: a child would load project code nobody approved; nothing starts. */
export function guardedChangedRefusal(paths: readonly string[]): string {
  return `Cannot start the subagent: project code that pi loads into every child appeared or changed since this session started (${listed(paths)}), and pi 0.73.1 would run it in the child without asking anyone. Nothing was started. Do not retry; tell the person, who can review those files and start pi again to accept them.`;
}
