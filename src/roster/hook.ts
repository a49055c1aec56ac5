/**
 * The roster's hooks as the light entry registers them: in a subagent at the nesting limit they return at once without loading
 * anything; otherwise the roster builder (agent discovery, frontmatter parsing) is imported on the first
 * `before_agent_start` or `context` and kept for the life of this extension instance (register.ts has the
 * behaviour: the roster in the system prompt, and beside a delivered result on pi 0.73.1).
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { mayDispatchSubagents } from "../shared/depth.ts";

type RosterModule = typeof import("./register.ts");
interface RosterHandlers {
  beforeAgentStart: ReturnType<RosterModule["createRosterHandler"]>;
  context: ReturnType<RosterModule["createRosterContextHandler"]>;
}

export function registerRosterHook(pi: Pick<ExtensionAPI, "on">): void {
  let handlers: Promise<RosterHandlers | undefined> | undefined;
  const load = (): Promise<RosterHandlers | undefined> => {
    handlers ??= import("./register.ts").then(
      (roster) => {
        const beforeAgentStart = roster.createRosterHandler();
        return { beforeAgentStart, context: roster.createRosterContextHandler(beforeAgentStart) };
      },
      () => undefined, // the prompt stays as it was, as for any roster failure
    );
    return handlers;
  };
  pi.on("before_agent_start", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env)) return undefined;
    return (await load())?.beforeAgentStart(event, ctx);
  });
  pi.on("context", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env)) return undefined;
    return (await load())?.context(event, ctx);
  });
}
