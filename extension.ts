/**
 * pi-subagent-dispatch: the entry pi loads, in every session and in every subagent child. It registers at once
 * only what pi needs at start and loads the rest on first use, so the package costs next to nothing where it
 * is not used (src/lazy/lazy-extension.ts explains the pattern; ADVANCED.md says what each part does).
 * - a subagent at the depth limit (PI_SUBAGENT_MAX_DEPTH, passed down by its parent) gets the `subagent` tool refusing every call (src/tool/depth-gate-tool.ts) and
 *   nothing else of ours: no roster, no commands, no runtime;
 * - the main pi gets src/entry/main-pi.ts: the manifest (src/manifest.ts: tool definition, command names, event
 *   hooks, message renderer) in front of the runtime (src/runtime.ts), imported on first use.
 * A new command, tool action or hook goes into the runtime (one line) and the manifest (one line); a part that
 * must run at start in every process (a child's watchdog, say) gets its own line below, kept light.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { mayDispatchSubagents } from "./src/shared/depth.ts";
import { watchParentFromChild } from "./src/run/parent-watchdog.js";

export default async function subagentDispatch(pi: ExtensionAPI): Promise<void> {
  // In a child pi: end the whole task when the pi that started it is gone (a no-op in the main pi, and when
  // node's preload already does it).
  watchParentFromChild();
  if (!mayDispatchSubagents()) {
    (await import("./src/tool/depth-gate-tool.ts")).registerDepthGateTool(pi);
    return;
  }
  (await import("./src/entry/main-pi.ts")).registerMainPi(pi);
}
