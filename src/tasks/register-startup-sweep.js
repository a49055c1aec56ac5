// @ts-check
/**
 * Clean-up of what an earlier pi left when it was killed hard: its runs still locked (ended, recorded as
 * failed, reported once; the agent body each was started with goes too). Done once per process, after the
 * first `session_start` (setImmediate), so it is never on pi's start-up path; the clean-up's modules are
 * imported only then. Only the main pi does it, never a subagent. Registered by the light entry, so it runs in
 * every mode.
 */
import { isInsideSubagent } from "../shared/depth.js";
import { agentDir } from "../shared/paths.js";
import { startupSweepHasWork } from "./startup-work.js";

let sweptInThisProcess = false;

/**
 * @param {Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">} pi
 * @param {() => Promise<typeof import("./startup-sweep.ts")>} importSweep The clean-up (src/tasks/startup-sweep.ts),
 *   imported by the caller: this module is loaded by Node itself and cannot import TypeScript.
 * @returns {void}
 */
export function registerStartupSweep(pi, importSweep) {
  if (isInsideSubagent()) return;
  pi.on("session_start", (_event, ctx) => {
    if (sweptInThisProcess) return;
    sweptInThisProcess = true;
    setImmediate(() => {
      // Nearly every start finds nothing: then the clean-up's modules are never loaded.
      if (!startupSweepHasWork(agentDir())) return;
      void importSweep().then(
        (sweep) => sweep.runStartupSweep(ctx),
        () => undefined, // the modules could not load: nothing to clean up with; the next start tries again
      );
    });
  });
}
