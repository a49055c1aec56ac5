/**
 * pi-subagent-dispatch: the entry pi loads. It only builds the parts and wires them to pi's ExtensionAPI; all
 * behaviour lives in src/ (see ADVANCED.md for what each part does).
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { registerRoster } from "./src/roster/register.ts";
import { agentDir } from "./src/shared/paths.ts";
import { registerBackgroundTasks } from "./src/tasks/register-background.ts";
import { createBackgroundDispatcher } from "./src/tool/background-dispatch.ts";
import { registerSubagentTool } from "./src/tool/register-tool.ts";

export default function subagentDispatch(pi: ExtensionAPI): void {
  registerRoster(pi);
  const background = registerBackgroundTasks(pi);
  registerSubagentTool(pi, { background: createBackgroundDispatcher(background.tasks, agentDir) });
}
