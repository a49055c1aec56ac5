/**
 * Where a fork's messages come from: the main agent's session, projected the way pi builds the model's context
 * (the active branch from the current leaf, the latest compaction's summary in place of what it replaced, and on
 * pi 1.x its context edits). pi's own `buildSessionContext` does that; the extension loader maps this import onto
 * the running pi's package, so each pi uses its own rules. Only reads the session: the parent's file is untouched.
 */
import { buildSessionContext, type ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { ForkMessage } from "../../run/fork-history.ts";

export function forkedConversation(sessionManager: ExtensionContext["sessionManager"]): ForkMessage[] {
  const context = buildSessionContext(sessionManager.getEntries(), sessionManager.getLeafId());
  return context.messages as ForkMessage[];
}
