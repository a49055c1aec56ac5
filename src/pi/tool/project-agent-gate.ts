/**
 * Whether a project agent may run now. pi's "no" was already applied (its agents are not discovered); here the
 * first-use rule: where pi has no decision, the TUI asks the person before the first run of each version of a
 * project agent's file, and a Yes is remembered for that exact text. Where nobody can be asked it is refused
 * (fail closed: a planted `.pi/agents/explore.md` must not run unasked in print mode). The question shows what the
 * file may do: its tools, its sandbox, the agent it replaces and the first lines of its prompt. Returns the
 * refusal, or undefined to go on.
 */
import type { AgentDefinition } from "../../agents/types.ts";
import type { ProjectAuthority } from "../../authority/project-trust.ts";
import { FIRST_USE_TITLE, firstUseDeclinedMessage, firstUseQuestion, firstUseRefusedUnaskedMessage } from "../../authority/texts.ts";
import { isApproved, rememberApproval } from "../../authority/first-use-approvals.ts";

export interface GateContext {
  /** True in the interactive TUI, where a person can answer. */
  canAsk: boolean;
  ui: { confirm(title: string, message: string): Promise<boolean>; notify(message: string, type?: "info" | "warning" | "error"): void };
  agentDir: string;
}

/** @param sandbox The sandbox it would run in, for the question (`read-only, from the agent's frontmatter`). */
export async function admitProjectAgent(agent: AgentDefinition, authority: ProjectAuthority, ctx: GateContext, sandbox: string): Promise<string | undefined> {
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
      ctx.ui.notify(`pi-subagent-dispatch: could not remember the approval of ${agent.filePath} (${error instanceof Error ? error.message : String(error)}); you will be asked again`, "warning");
    }
  }
  return undefined;
}
