/**
 * What this pi session may hand down, read from pi: its trust decision for the project (pi 1.x
 * `ctx.isProjectTrusted()`, and whether that decision was taken or only implied by a folder with nothing pi
 * guards) and its tools at this moment (`getActiveTools`, `getAllTools`). pi 0.73.1 has no trust system.
 */
import * as piPackage from "@mariozechner/pi-coding-agent";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { PiTrust } from "../../core/authority/project-trust.ts";
import type { SessionTools } from "../../core/authority/tool-ceiling.ts";

/** The part of pi's context the trust decision is read from; `isProjectTrusted` exists on pi 1.x only. */
export interface TrustContext {
  cwd: string;
  isProjectTrusted?: () => boolean;
}

/** pi 1.x's own helpers (absent on 0.73.1); read through the namespace, since a named import would fail there. */
interface PiTrustHelpers {
  hasTrustRequiringProjectResources?: (cwd: string) => boolean;
  ProjectTrustStore?: new (agentDir: string) => { get(cwd: string): boolean | null };
}

/** True when pi trusted the project by a decision, false when only because the folder holds nothing pi guards. */
function trustWasDecided(cwd: string, argv: readonly string[], agentDir: string): boolean {
  const helpers = piPackage as unknown as PiTrustHelpers;
  if (argv.includes("--approve")) return true;
  // Without pi's helpers the decision cannot be told from an implied one: follow it as pi's own.
  if (typeof helpers.hasTrustRequiringProjectResources !== "function" || typeof helpers.ProjectTrustStore !== "function") return true;
  try {
    if (helpers.hasTrustRequiringProjectResources(cwd)) return true;
    return new helpers.ProjectTrustStore(agentDir).get(cwd) === true;
  } catch {
    return true;
  }
}

export function readPiTrust(ctx: TrustContext, argv: readonly string[], agentDir: string): PiTrust {
  if (typeof ctx.isProjectTrusted !== "function") return { kind: "no-trust-system" };
  let trusted: boolean;
  try {
    trusted = ctx.isProjectTrusted();
  } catch {
    // A pi that cannot say is not trusted: the safe side.
    trusted = false;
  }
  if (!trusted) return { kind: "untrusted" };
  return { kind: "trusted", explicit: trustWasDecided(ctx.cwd, argv, agentDir) };
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
