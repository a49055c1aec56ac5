/**
 * The `subagent` tool as a sandboxed subagent below the depth limit has it: the same name, texts and parameters
 * (so its model sees the tool the main agent sees), and every call refused with the sandbox's message: no sandbox
 * can be made inside one, and its only writable task folder is its own. (At the depth limit a subagent has no
 * `subagent` tool at all: the entry registers nothing there.) Registered by the entry in place of everything else:
 * pi loads the package in every child where it is installed, so this path stays a handful of native modules (the
 * nesting variables and the tool's texts); the schema comes from the entry, like the main tool's.
 */
import { readSandboxEnv } from "../shared/nesting.ts";
import { sandboxGateMessage, SUBAGENT_TOOL_TEXTS } from "../tool/texts.ts";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import type { subagentParameters } from "../tool/schema.ts";

export function registerSandboxGateTool(
  pi: Pick<ExtensionAPI, "registerTool">,
  parameters: typeof subagentParameters,
): void {
  pi.registerTool({
    ...SUBAGENT_TOOL_TEXTS,
    parameters,
    execute: async () => {
      const sandbox = readSandboxEnv();
      // Only loaded in a sandbox; should the variable read otherwise now, refuse all the same.
      throw new Error(sandbox ? sandboxGateMessage(sandbox) : "Subagent tool is blocked in this process.");
    },
  });
}
