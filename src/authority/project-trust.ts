/**
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
export const DEFAULT_PROJECT_AGENTS_POLICY: ProjectAgentsPolicy = "ask";

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

export function parseProjectAgentsPolicy(raw: unknown): ProjectAgentsPolicy | undefined {
  return raw === "ask" || raw === "ask-or-refuse" || raw === "always" || raw === "never" ? raw : undefined;
}

/**
 * @param trust pi's decision as it was at the session's start (src/authority/session-start.ts).
 * @param changedSinceStart the files pi guards that appeared or changed since then.
 */
export function decideProjectAuthority(trust: PiTrust, policy: ProjectAgentsPolicy = DEFAULT_PROJECT_AGENTS_POLICY, changedSinceStart: readonly string[] = []): ProjectAuthority {
  const changed = changedSinceStart.length > 0 ? { changedSinceStart: [...changedSinceStart] } : {};
  if (trust.kind === "untrusted") {
    return { projectConfig: false, projectAgents: false, hiddenBecause: "untrusted", gate: "run", childTrustFlag: "--no-approve", ...changed };
  }
  // The person's decision covers what was there at the start. A guarded file that appeared since (a
  // `.pi/extensions/` one a task wrote, say) is covered by none: the child is told "no". An implied trust with
  // nothing new is not passed on: the child decides afresh, as this session did, and finds the same.
  let childTrustFlag: ProjectAuthority["childTrustFlag"];
  if (trust.kind === "trusted") childTrustFlag = changedSinceStart.length > 0 ? "--no-approve" : trust.explicit ? "--approve" : undefined;
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
