/** What the person and the model read about project trust and the tool ceiling. */
import type { AgentDefinition } from "../agents/types.ts";
import { stripTerminalControls } from "../shared/terminal-text.ts";
import type { ProjectAuthority } from "./project-trust.ts";

export const TRUST_HOW_TO = "to use them, trust the project: start pi with --approve, or run /trust";

/** Once per session, when something of the project's was left out. */
export function projectSkippedNotice(hiddenBecause: NonNullable<ProjectAuthority["hiddenBecause"]>, skipped: readonly string[]): string {
  const what = skipped.join(" and ");
  if (hiddenBecause === "policy") return `pi-subagent-dispatch: project agents are turned off ("$projectAgents": "never" in your subagent-isolation.json): not using ${what}`;
  return `pi-subagent-dispatch: this project is not trusted, so its subagent files are not used (${what}); ${TRUST_HOW_TO}`;
}

/**
 * The notice naming what of the project's was left out (its agents folder, and in an untrusted project its
 * subagent-isolation.json), or undefined when nothing was. The roster and the tool build it alike, so the person
 * reads one notice, whichever path meets the project first.
 */
export function projectSkippedNoticeFor(authority: ProjectAuthority, agentsDir: string | undefined, configFile: string | undefined): string | undefined {
  if (!authority.hiddenBecause) return undefined;
  const skipped = [agentsDir ? `${agentsDir}/` : undefined, authority.hiddenBecause === "untrusted" ? configFile : undefined].filter((item) => item !== undefined);
  return skipped.length > 0 ? projectSkippedNotice(authority.hiddenBecause, skipped) : undefined;
}

/** What keys the notice's once-only report: one notice per session and project. */
export function projectSkippedNoticeKey(sessionId: string | undefined, cwd: string): string {
  return `project-skipped:${sessionId ?? ""}:${cwd}`;
}

/** Added to an unknown-agent refusal when the project's agents were left out. */
export function projectAgentsHiddenNote(hiddenBecause: NonNullable<ProjectAuthority["hiddenBecause"]>): string {
  if (hiddenBecause === "policy") return ` The project's agents are turned off by the person's setting ("$projectAgents": "never"); do not retry with them.`;
  return ` The project's agents are not available because this project is not trusted in this session (${TRUST_HOW_TO}; only the person can do that).`;
}

export const FIRST_USE_TITLE = "Run a project agent?";

/** How many lines of the agent's prompt the first-use question shows, and how long each may be. */
const PROMPT_LINES = 4;
const PROMPT_LINE_CHARS = 100;

/** What the question shows of the file: what it may do, and what it is told. */
export interface FirstUseFacts {
  agent: Pick<AgentDefinition, "name" | "filePath" | "tools" | "body" | "shadows">;
  /** The sandbox it would run in, and who decided it (`read-only, from the agent's frontmatter`). */
  sandbox: string;
}

function clip(line: string): string {
  const clean = stripTerminalControls(line).trim();
  return clean.length > PROMPT_LINE_CHARS ? `${clean.slice(0, PROMPT_LINE_CHARS - 1)}…` : clean;
}

export function firstUseQuestion(facts: FirstUseFacts): string {
  const { agent } = facts;
  const tools = agent.tools === undefined ? "pi's defaults (read, bash, edit, write) and every extension tool" : agent.tools.length === 0 ? "none" : agent.tools.join(", ");
  const lines = agent.body.split("\n").map(clip).filter((line) => line !== "");
  const prompt = lines.slice(0, PROMPT_LINES).map((line) => `  ${line}`);
  if (lines.length > PROMPT_LINES) prompt.push(`  … (${lines.length - PROMPT_LINES} more lines in the file)`);
  const replaces = agent.shadows ? [`Replaces: the ${agent.shadows.source === "builtin" ? "built-in" : "user"} agent "${agent.shadows.name}" (it keeps that agent's sandbox at least and its tools at most)`] : [];
  return [
    `The model wants to run the subagent "${clip(agent.name)}", defined by this project in ${clip(agent.filePath)}. pi has no trust decision for this project, so you are asked once for each version of this file.`,
    `Tools: ${clip(tools)}`,
    `Sandbox: ${facts.sandbox}`,
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
