/**
 * The clean-up itself (see register-startup-sweep.ts): runs whose pi died (with the agent's body each was started
 * with), and the temp prompt folders earlier versions of the package left behind. The runs are reaped in slices
 * (src/delivery/orphan-sweep.ts), each one's notice told as soon as it is recorded.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { sweepStalePromptDirs } from "../run/session-files.ts";
import { agentDir } from "../shared/this-process.ts";
import { readRunSettings } from "../shared/run-settings.ts";
import { defaultSweepDeps, reapedNotice, reapOrphanedTasksInSlices } from "../delivery/orphan-sweep.ts";

export async function runStartupSweep(ctx: Pick<ExtensionContext, "hasUI" | "ui">): Promise<void> {
  // Read once, now: a print-mode pi may be shutting down by the time a later slice reports, and a stale
  // context can throw on any access.
  let hasUI = false;
  try {
    hasUI = ctx.hasUI;
  } catch {
    // a stale context already: print where print mode's notices go
  }
  const tell = (notice: string) => {
    if (!hasUI) {
      process.stderr.write(`${notice}\n`);
      return;
    }
    try {
      ctx.ui.notify(notice, "warning");
    } catch {
      // a stale context after a quick /reload: the record on disk still says it
    }
  };
  sweepStalePromptDirs();
  try {
    await reapOrphanedTasksInSlices(agentDir(), defaultSweepDeps(readRunSettings()), (task) =>
      tell(reapedNotice(task)),
    );
  } catch (error) {
    tell(
      `Subagent clean-up of runs left by an ended pi failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
