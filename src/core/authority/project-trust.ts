/**
 * What a project may make a subagent do, from pi's trust decision and the person's user-level setting. pi 1.x
 * decides whether this session trusts the project (`--approve`, `/trust`, trust.json, `defaultProjectTrust`);
 * an untrusted project's agents and subagent-isolation.json count for nothing, and every child gets the same
 * decision on its command line. Where pi has no decision (pi 0.73.1, which has no trust system, and pi 1.x
 * projects it trusts only because they hold nothing it guards), a project agent is trusted on first use: the
 * person is asked once per version of the file in the TUI. Pure.
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
 *   agent; where nobody can be asked (print, JSON, RPC) it runs;
 * - `ask-or-refuse`: the same, but where nobody can be asked it is refused;
 * - `always`: project agents run without a question (pi's "no" still holds);
 * - `never`: project agents are never listed or run.
 */
export type ProjectAgentsPolicy = "ask" | "ask-or-refuse" | "always" | "never";
export const DEFAULT_PROJECT_AGENTS_POLICY: ProjectAgentsPolicy = "ask";

/** How a project agent's run is gated. */
export type ProjectAgentGate = "run" | "first-use" | "first-use-or-refuse";

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
}

export function parseProjectAgentsPolicy(raw: unknown): ProjectAgentsPolicy | undefined {
  return raw === "ask" || raw === "ask-or-refuse" || raw === "always" || raw === "never" ? raw : undefined;
}

export function decideProjectAuthority(trust: PiTrust, policy: ProjectAgentsPolicy = DEFAULT_PROJECT_AGENTS_POLICY): ProjectAuthority {
  if (trust.kind === "untrusted") {
    return { projectConfig: false, projectAgents: false, hiddenBecause: "untrusted", gate: "run", childTrustFlag: "--no-approve" };
  }
  // An implied trust is not passed on: the child decides afresh, so a guarded file a task wrote since this pi
  // started (a `.pi/extensions/` one, say) is not loaded by a child when this session never loaded it.
  const base: Pick<ProjectAuthority, "projectConfig" | "childTrustFlag"> =
    trust.kind === "trusted" && trust.explicit ? { projectConfig: true, childTrustFlag: "--approve" } : { projectConfig: true };
  if (policy === "never") return { ...base, projectAgents: false, hiddenBecause: "policy", gate: "run" };
  const piDecided = trust.kind === "trusted" && trust.explicit;
  if (piDecided || policy === "always") return { ...base, projectAgents: true, gate: "run" };
  return { ...base, projectAgents: true, gate: policy === "ask-or-refuse" ? "first-use-or-refuse" : "first-use" };
}
