/**
 * What the entry registers in a pi that may dispatch (the main agent): the start-up sweep, the roster hooks and
 * the lazily loaded runtime behind the manifest (src/start/lazy-extension.ts explains the pattern). Without the
 * TUI a tool call loads only the tool's part of the runtime (src/pi/runtime-tool.ts).
 * Everything under pi/ is imported lazily from here: that is the seam between pi's start and first use.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { registerLazily, type LazyManifest, type LazyRuntimes } from "./lazy-extension.ts";
import { subagentManifest } from "./manifest.ts";
import { registerRosterHook } from "./roster-hook.ts";
import { detectAppMode } from "../shared/mode.ts";
import { registerStartupSweep } from "./register-startup-sweep.ts";
import { registerSessionStart } from "./register-session-start.ts";
import { TOOL_NAME } from "../tool/texts.ts";

/** The runtime's parts, each imported on first use (src/start/lazy-extension.ts says when). */
const RUNTIME_PARTS: LazyRuntimes = {
  all: () => import("../pi/runtime.ts"),
  toolOnly: () => import("../pi/runtime-tool.ts"),
  draw: async () => (await import("../pi/ui/draw-part.ts")).drawPart,
};

/**
 * @param toolParameters The `subagent` tool's parameter schema (src/tool/schema.ts), which pi needs at start; the
 *   entry hands it over since start/ imports pi/ only lazily.
 * @param parts The runtime's parts (tests hand in their own).
 */
export function registerMainPi(pi: ExtensionAPI, toolParameters: LazyManifest["tools"][number]["parameters"], parts: LazyRuntimes = RUNTIME_PARTS): void {
  // Authority is decided once per session, at its start (before any child could have written a file).
  registerSessionStart(pi);
  // Once per process, after the first session_start: runs left by a pi that was killed hard (loads on demand).
  registerStartupSweep(pi);
  registerRosterHook(pi, () => import("../pi/roster.ts"));
  const interactive = detectAppMode() === "interactive";
  const lazy = registerLazily(pi, subagentManifest(toolParameters), {
    all: parts.all,
    toolOnly: interactive ? undefined : parts.toolOnly,
    draw: interactive ? parts.draw : undefined,
  });
  // Without the TUI nothing of the runtime is loaded before the first call. A model streams a call's name before its
  // arguments (the task, often hundreds of tokens), so the load starts then and overlaps the rest of the stream.
  if (!interactive) {
    pi.on("message_update", (event) => {
      if (startsSubagentCall(event.assistantMessageEvent)) lazy.prefetchForTool();
    });
  }
}

/** Whether a streamed assistant-message event opens a `subagent` tool call. */
export function startsSubagentCall(update: { type: string; contentIndex?: number; partial?: { content?: ReadonlyArray<{ type: string; name?: string }> } }): boolean {
  if (update.type !== "toolcall_start" || update.contentIndex === undefined) return false;
  const block = update.partial?.content?.[update.contentIndex];
  return block?.type === "toolCall" && block.name === TOOL_NAME;
}
