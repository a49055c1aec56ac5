/**
 * Clean-up of what an earlier pi left when it was killed hard: its runs still locked (ended, recorded as
 * failed, reported once; the agent body each was started with goes too). Done once per process, after the
 * first `session_start` (setImmediate), so it is never on pi's start-up path; the clean-up's modules are
 * imported only then. Only the main pi does it, never a subagent. Registered by the light entry, so it runs in
 * every mode.
 */
import { isInsideSubagent } from "../shared/depth.ts";
import { agentDir } from "../shared/paths.ts";
import { startupSweepState } from "../delivery/startup-sweep-state.ts";
import { startupSweepHasWork } from "../run/startup-work.ts";

/** @param importSweep The clean-up's module (src/pi/startup-sweep.ts); a parameter so tests can hand in a fake. */
export function registerStartupSweep(
  pi: Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">,
  importSweep: () => Promise<typeof import("../pi/startup-sweep.ts")> = () => import("../pi/startup-sweep.ts"),
): void {
  if (isInsideSubagent()) return;
  const sweep = startupSweepState();
  pi.on("session_start", (_event, ctx) => {
    if (sweep.done) return;
    sweep.done = true;
    setImmediate(() => {
      // Nearly every start finds nothing: then the clean-up's modules are never loaded.
      let work = false;
      try {
        work = startupSweepHasWork(agentDir());
      } catch {
        // an unreadable agent dir: nothing this start can clean up
      }
      if (!work) {
        sweep.settle();
        return;
      }
      void importSweep()
        .then(
          (module) => module.runStartupSweep(ctx),
          () => undefined, // the modules could not load: nothing to clean up with; the next start tries again
        )
        .finally(() => sweep.settle());
    });
  });
  // pi awaits session_shutdown's handlers before it exits: a `pi -p` that is done before the clean-up has
  // reported what it reaped waits for the rest of it (the slices are short; nearly always nothing is left).
  pi.on("session_shutdown", () => (sweep.done ? sweep.settled : undefined));
}
