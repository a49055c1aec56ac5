// @ts-check
/**
 * What the entry registers in a pi that may dispatch (the main agent): the start-up sweep, the roster hooks and
 * the lazily loaded runtime behind the manifest (src/lazy/lazy-extension.js explains the pattern). Without the
 * TUI a tool call loads only the tool's part of the runtime (src/runtime-tool.js).
 *
 * This module and everything it imports are plain JavaScript that Node loads itself (ADVANCED.md, "Modules Node
 * loads itself"), so they cannot import TypeScript: the entry, which pi loads through its TypeScript
 * loader, hands over the TypeScript parts as `import()` thunks.
 */
import { registerLazily } from "../lazy/lazy-extension.js";
import { subagentManifest } from "../manifest.js";
import { registerRosterHook } from "../roster/hook.js";
import { beginExtensionLoad } from "../shared/extension-instance.js";
import { detectAppMode } from "../shared/mode.js";
import { registerStartupSweep } from "../tasks/register-startup-sweep.js";
import { TOOL_NAME } from "../tool/texts.js";

/**
 * What the entry hands over: the parts from pi's packages and the TypeScript parts, imported on first use.
 * @typedef {object} MainPiParts
 * @property {import("../lazy/lazy-extension.js").LazyManifest["tools"][number]["parameters"]} toolParameters
 *   The `subagent` tool's parameter schema (src/tool/schema.ts).
 * @property {() => Promise<import("../lazy/lazy-extension.js").LazyRuntime>} runtime The whole runtime (src/runtime.ts).
 * @property {() => Promise<import("../lazy/lazy-extension.js").LazyRuntime>} runtimeTool The tool's part
 *   (src/runtime-tool.js).
 * @property {() => Promise<typeof import("../tasks/startup-sweep.ts")>} startupSweep The start-up clean-up.
 * @property {() => Promise<import("../lazy/lazy-extension.js").DrawPart>} [drawPart] The renderers alone
 *   (src/ui/draw-part.ts), what the TUI waits for before drawing a session that holds subagent calls.
 */

/**
 * @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi
 * @param {MainPiParts} parts
 * @returns {void}
 */
export function registerMainPi(pi, parts) {
  // A new load of the extension (start-up, /reload): what lives only as long as one load starts afresh.
  beginExtensionLoad();
  // Once per process, after the first session_start: runs left by a pi that was killed hard (loads on demand).
  registerStartupSweep(pi, parts.startupSweep);
  registerRosterHook(pi, () => import("../roster/register.js"));
  const interactive = detectAppMode() === "interactive";
  const lazy = registerLazily(pi, subagentManifest(parts.toolParameters), {
    all: parts.runtime,
    toolOnly: interactive ? undefined : parts.runtimeTool,
    draw: interactive ? parts.drawPart : undefined,
  });
  // Without the TUI nothing of the runtime is loaded before the first call. A model streams a call's name before its
  // arguments (the task, often hundreds of tokens), so the load starts then and overlaps the rest of the stream.
  if (!interactive) {
    pi.on("message_update", (event) => {
      if (startsSubagentCall(event.assistantMessageEvent)) lazy.prefetchForTool();
    });
  }
}

/**
 * Whether a streamed assistant-message event opens a `subagent` tool call.
 * @param {{ type: string, contentIndex?: number, partial?: { content?: ReadonlyArray<{ type: string, name?: string }> } }} update
 * @returns {boolean}
 */
export function startsSubagentCall(update) {
  if (update.type !== "toolcall_start" || update.contentIndex === undefined) return false;
  const block = update.partial?.content?.[update.contentIndex];
  return block?.type === "toolCall" && block.name === TOOL_NAME;
}
