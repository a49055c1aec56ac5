/**
 * pi-subagent-dispatch: the entry pi loads, in every session and in every subagent child. It registers at once
 * only what pi needs at start and loads the rest on first use, so the package costs next to nothing where it
 * is not used (src/lazy/lazy-extension.ts explains the pattern; ADVANCED.md says what each part does).
 * - src/manifest.ts: what pi sees at start (tool definition, command names, event hooks, message renderer);
 * - src/runtime.ts: the parts that do the work, imported on first use.
 * A new command, tool action or hook goes into the runtime (one line) and the manifest (one line); a part that
 * must run at start in every process (a child's watchdog, say) gets its own line below, kept light.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { registerLazily } from "./src/lazy/lazy-extension.ts";
import { MANIFEST } from "./src/manifest.ts";
import { registerRosterHook } from "./src/roster/hook.ts";
import { endTaskWhenInputEndsMidRun, startParentWatchdog } from "./src/run/parent-watchdog.ts";
import { registerStartupSweep } from "./src/tasks/register-startup-sweep.ts";

export default function subagentDispatch(pi: ExtensionAPI): void {
  // In a child pi: end the whole task when the pi that started it is gone (a no-op in the main pi).
  startParentWatchdog();
  endTaskWhenInputEndsMidRun(pi);
  // Once per process, after the first session_start: runs left by a pi that was killed hard (loads on demand).
  registerStartupSweep(pi);
  registerRosterHook(pi);
  registerLazily(pi, MANIFEST, () => import("./src/runtime.ts"));
}
