/**
 * The `subagent` tool as a subagent at the depth limit has it: the same name, texts and parameters (so its model
 * sees the tool the main agent sees), and every call refused with the depth-gate message, exactly as the whole
 * tool refuses it (validate.ts's `checkDepth`); a sandboxed subagent has it too, refusing with the sandbox's
 * message (no sandbox can be made inside one, and its only writable task folder is its own). Registered by the
 * entry in place of everything else there: pi loads the package in every child where it is installed, so this
 * path stays a handful of native modules (the depth variables and the tool's texts); the schema comes from the
 * entry, like the main tool's.
 */
import { DEFAULT_MAX_DEPTH, readMaxDepthEnv, readSandboxEnv, readSubagentDepth } from "../shared/nesting.ts";
import { depthGateMessage, sandboxGateMessage, SUBAGENT_TOOL_TEXTS } from "../tool/texts.ts";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { subagentParameters } from "../tool/schema.ts";

export function registerDepthGateTool(
  pi: Pick<ExtensionAPI, "registerTool">,
  parameters: typeof subagentParameters,
): void {
  pi.registerTool({
    ...SUBAGENT_TOOL_TEXTS,
    parameters,
    execute: async () => {
      const depth = readSubagentDepth();
      const maxDepth = readMaxDepthEnv() ?? DEFAULT_MAX_DEPTH;
      const sandbox = readSandboxEnv();
      if (depth >= maxDepth) throw new Error(depthGateMessage(depth, maxDepth));
      // Only loaded at the limit or in a sandbox; should neither read so now, refuse all the same.
      throw new Error(sandbox ? sandboxGateMessage(sandbox) : "Subagent tool is blocked in this process.");
    },
  });
}
