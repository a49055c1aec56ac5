/**
 * Clean-up of what an earlier pi left when it was killed hard: its runs still locked (ended, recorded as
 * failed, reported once) and its temp prompt folders. Done once per process, after the first `session_start`
 * (setImmediate), so it is never on pi's start-up path; the clean-up's modules are imported only then. Only
 * the main pi does it, never a subagent. Registered by the light entry, so it runs in every mode.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { isInsideSubagent } from "../shared/depth.ts";
import { agentDir } from "../shared/paths.ts";
import { startupSweepHasWork } from "./startup-work.ts";

let sweptInThisProcess = false;

export function registerStartupSweep(pi: ExtensionAPI): void {
  if (isInsideSubagent()) return;
  pi.on("session_start", (_event, ctx) => {
    if (sweptInThisProcess) return;
    sweptInThisProcess = true;
    setImmediate(() => {
      // Nearly every start finds nothing: then the clean-up's modules are never loaded.
      if (!startupSweepHasWork(agentDir())) return;
      void import("./startup-sweep.ts").then(
        (sweep) => sweep.runStartupSweep(ctx),
        () => undefined, // the modules could not load: nothing to clean up with; the next start tries again
      );
    });
  });
}
