/**
 * The roster's hook as the light entry registers it: inside a subagent it returns at once without loading
 * anything; otherwise the roster builder (agent discovery, frontmatter parsing) is imported on the first
 * `before_agent_start` and kept for the life of this extension instance (register.ts has the behaviour).
 */
import type { BeforeAgentStartEvent, BeforeAgentStartEventResult, ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { isInsideSubagent } from "../shared/depth.ts";

type RosterHandler = (event: Pick<BeforeAgentStartEvent, "systemPrompt">, ctx: ExtensionContext) => BeforeAgentStartEventResult | undefined;

export function registerRosterHook(pi: Pick<ExtensionAPI, "on">): void {
  let handler: RosterHandler | undefined;
  pi.on("before_agent_start", async (event, ctx) => {
    if (isInsideSubagent(process.env)) return undefined;
    try {
      handler ??= (await import("./register.ts")).createRosterHandler();
    } catch {
      return undefined; // the prompt stays as it was, as for any roster failure
    }
    return handler(event, ctx);
  });
}
