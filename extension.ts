/**
 * pi-subagent-dispatch: the entry pi loads. It only builds the parts and wires them to pi's ExtensionAPI; all
 * behaviour lives in src/ (see ADVANCED.md for what each part does).
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { registerTaskCommands } from "./src/commands/register-commands.ts";
import { registerSubagentConfigCommand } from "./src/commands/subagent-config/register.ts";
import { registerRoster } from "./src/roster/register.ts";
import { startParentWatchdog } from "./src/run/parent-watchdog.ts";
import { agentDir } from "./src/shared/paths.ts";
import { registerBackgroundTasks } from "./src/tasks/register-background.ts";
import { registerStartupSweep } from "./src/tasks/register-startup-sweep.ts";
import { createBackgroundDispatcher } from "./src/tool/background-dispatch.ts";
import { registerSubagentTool } from "./src/tool/register-tool.ts";
import { registerUi } from "./src/ui/register-ui.ts";

export default function subagentDispatch(pi: ExtensionAPI): void {
  // In a child pi: end the whole task when the pi that started it is gone (a no-op in the main pi).
  startParentWatchdog();
  // Before the background tasks, so a run reaped at start is in the outbox when redelivery reads it.
  registerStartupSweep(pi);
  registerRoster(pi);
  registerSubagentConfigCommand(pi);
  const background = registerBackgroundTasks(pi);
  const ui = registerUi(pi, background);
  registerTaskCommands(pi, background);
  registerSubagentTool(pi, { background: createBackgroundDispatcher(background.tasks, agentDir), renderers: ui.toolRenderers });
}
