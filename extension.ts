/**
 * pi-subagent-dispatch: the entry pi loads, in every session and in every subagent child. It registers at once
 * only what pi needs at start and loads the rest on first use, so the package costs next to nothing where it
 * is not used (src/lazy/lazy-extension.js explains the pattern; ADVANCED.md says what each part does).
 * - a subagent at the depth limit (PI_SUBAGENT_MAX_DEPTH, passed down by its parent) gets the `subagent` tool refusing every call (src/tool/depth-gate-tool.js) and
 *   nothing else of ours: no roster, no commands, no runtime;
 * - the main pi gets src/entry/main-pi.js: the manifest (src/manifest.js: tool definition, command names, event
 *   hooks, message renderer) in front of the runtime (src/runtime.ts), imported on first use.
 * The modules on pi's start-up path and on the tool's path are plain JavaScript with JSDoc types, which pi's
 * TypeScript loader hands to Node as they are (ADVANCED.md, "Modules Node loads itself"). They cannot import
 * TypeScript or pi, so this entry passes them pi's agent-dir resolution, the tool's parts from pi's packages
 * (src/tool/pi-parts.ts) and the TypeScript parts as thunks.
 * A new command, tool action or hook goes into the runtime (one line) and the manifest (one line); a part that
 * must run at start in every process (a child's watchdog, say) gets its own line below, kept light.
 */
import { getAgentDir, type ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { mayDispatchSubagents } from "./src/shared/depth.js";
import { useAgentDirResolver } from "./src/shared/paths.js";
import { watchParentFromChild } from "./src/run/parent-watchdog.js";
import { toolPiParts } from "./src/tool/pi-parts.ts";

export default async function subagentDispatch(pi: ExtensionAPI): Promise<void> {
  // In a child pi: end the whole task when the pi that started it is gone (a no-op in the main pi, and when
  // node's preload already does it).
  watchParentFromChild();
  useAgentDirResolver(getAgentDir);
  if (!mayDispatchSubagents()) {
    (await import("./src/tool/depth-gate-tool.js")).registerDepthGateTool(pi, toolPiParts.parameters);
    return;
  }
  (await import("./src/entry/main-pi.js")).registerMainPi(pi, {
    toolParameters: toolPiParts.parameters,
    runtime: () => import("./src/runtime.ts"),
    runtimeTool: async () => (await import("./src/runtime-tool.js")).toolPart(toolPiParts),
    startupSweep: () => import("./src/tasks/startup-sweep.ts"),
    drawPart: async () => (await import("./src/ui/draw-part.ts")).drawPart,
  });
}
