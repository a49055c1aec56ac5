/**
 * The extension's runtime: every part that does the work (dispatch, background tasks, UI, command bodies, the
 * config editor), wired to pi exactly as an eager extension would wire them. The entry (extension.ts) imports
 * this module on first use only; see src/start/lazy-extension.ts for when, and src/start/manifest.ts for what pi sees
 * before. Whatever is registered here (a tool, a command, an event hook, a message renderer) needs its line
 * in the manifest too; test/unit/start/manifest.test.ts checks that.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { FanOutGate } from "../budget/fan-out-gate.ts";
import { registerLedger } from "./commands/register-ledger.ts";
import { registerTaskCommands, registerWorktreesCommand } from "./commands/register-commands.ts";
import { registerSubagentConfigCommand } from "./commands/subagent-config/register.ts";
import { registerAgentsCommand } from "./commands/agents-register.ts";
import { agentDir } from "../shared/paths.ts";
import { registerBackgroundTasks } from "./register-background.ts";
import { registerQuestions } from "./dialogs/register-questions.ts";
import { createBackgroundDispatcher } from "./tool/background-dispatch.ts";
import { registerSubagentTool } from "./tool/register-tool.ts";
import { registerUi } from "./ui/register-ui.ts";

export function register(pi: ExtensionAPI): void {
  registerSubagentConfigCommand(pi);
  const background = registerBackgroundTasks(pi, { questions: registerQuestions(pi) });
  const ledger = registerLedger(pi);
  background.onCreated((tasks) => tasks.onRecord((record) => ledger.record(record)));
  const fanOutGate = new FanOutGate({
    inFlight: () => (background.existing()?.snapshot() ?? []).map(({ taskId, agent, task, status }) => ({ taskId, agent, task, status })),
  });
  pi.on("agent_start", () => fanOutGate.runStarted());
  const ui = registerUi(pi, background);
  registerTaskCommands(pi, background);
  registerWorktreesCommand(pi);
  registerAgentsCommand(pi);
  registerSubagentTool(pi, { background: createBackgroundDispatcher(background.tasks, agentDir), renderers: ui.toolRenderers, onRecorded: (record) => ledger.record(record), fanOutGate });
}
