// @ts-check
/**
 * The `subagent` tool as a subagent at the depth limit has it: the same name, texts and parameters (so its model
 * sees the tool the main agent sees), and every call refused with the depth-gate message, exactly as the whole
 * tool refuses it (validate.js's `checkDepth`). Registered by the entry in place of everything else there: pi
 * loads the package in every child where it is installed, so this path stays a handful of native modules (the
 * depth variables and the tool's texts); the schema comes from the entry, like the main tool's.
 */
import { DEFAULT_MAX_DEPTH, readMaxDepthEnv, readSubagentDepth } from "../shared/depth.js";
import { depthGateMessage, SUBAGENT_TOOL_TEXTS } from "./texts.js";
/** @import { ExtensionAPI } from "@mariozechner/pi-coding-agent" */
/** @import { subagentParameters } from "./schema.ts" */

/**
 * @param {Pick<ExtensionAPI, "registerTool">} pi
 * @param {typeof subagentParameters} parameters
 * @returns {void}
 */
export function registerDepthGateTool(pi, parameters) {
  pi.registerTool({
    ...SUBAGENT_TOOL_TEXTS,
    parameters,
    execute: async () => {
      const depth = readSubagentDepth();
      const maxDepth = readMaxDepthEnv() ?? DEFAULT_MAX_DEPTH;
      // Only loaded at the limit; should the depth read differently, refuse all the same.
      throw new Error(depth >= maxDepth ? depthGateMessage(depth, maxDepth) : "Subagent tool is blocked in this process.");
    },
  });
}
