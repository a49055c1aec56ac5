/**
 * The `subagent` tool as a subagent at the depth limit has it: the same name, texts and parameters (so its model
 * sees the tool the main agent sees), and every call refused with the depth-gate message, exactly as the whole
 * tool refuses it (validate.js's first check). Registered by the entry in place of everything else there: a child
 * that may not dispatch loads a handful of modules, not the runtime.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { DEFAULT_MAX_DEPTH, readMaxDepthEnv, readSubagentDepth } from "../shared/depth.js";
import { subagentParameters } from "./schema.ts";
import { SUBAGENT_TOOL_TEXTS } from "./texts.js";
import { checkDepth } from "./validate.js";

export function registerDepthGateTool(pi: Pick<ExtensionAPI, "registerTool">): void {
  pi.registerTool({
    ...SUBAGENT_TOOL_TEXTS,
    parameters: subagentParameters,
    execute: async () => {
      const depthCheck = checkDepth(readSubagentDepth(), readMaxDepthEnv() ?? DEFAULT_MAX_DEPTH);
      // Only loaded at the limit, so the check fails; should the depth read differently, refuse all the same.
      throw new Error(depthCheck.ok ? "Subagent tool is blocked in this process." : depthCheck.message);
    },
  });
}
