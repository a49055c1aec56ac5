/**
 * What the `subagent` tool takes from pi's own packages: its TypeBox schema and, for a fork, pi's session-context
 * builder. The tool's modules are loaded by Node itself and cannot import them (ADVANCED.md, "Modules Node loads
 * itself"), so the TypeScript that pi's loader runs (extension.ts, src/runtime.ts) hands these over.
 */
import { loadOnce } from "../shared/load-once.js";
import type { ToolPiParts } from "./register-tool.js";
import { subagentParameters } from "./schema.ts";

export const toolPiParts: ToolPiParts = {
  parameters: subagentParameters,
  loadForkSource: loadOnce(() => import("./fork-source.ts")),
};
