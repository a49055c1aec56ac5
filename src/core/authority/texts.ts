/** What the person and the model read about project trust and the tool ceiling. */
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

export function firstUseQuestion(name: string, filePath: string): string {
  return `The model wants to run the subagent "${name}", defined by this project in ${filePath}. pi has no trust decision for this project, so you are asked once for each version of this file. Run it?`;
}

export function firstUseDeclinedMessage(name: string, filePath: string): string {
  return `The person declined to run the project agent "${name}" (${filePath}). Do not retry it; use another agent or do the work without it, or ask the person.`;
}

export function firstUseRefusedUnaskedMessage(name: string, filePath: string): string {
  return `The project agent "${name}" (${filePath}) runs only after the person approves it in the interactive TUI ("$projectAgents": "ask-or-refuse"), and nobody can be asked here. Use another agent.`;
}
