/**
 * The clean-up itself (see register-startup-sweep.ts): runs whose pi died (with the agent's body each was started
 * with), and the temp prompt folders earlier versions of the package left behind.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { sweepStalePromptDirs } from "../../io/run/prompt-dir.ts";
import { agentDir } from "../../io/shared/paths.ts";
import { readRunSettings } from "../../core/shared/run-settings.ts";
import { defaultSweepDeps, reapedNotice, reapOrphanedTasks } from "../../io/tasks/orphan-sweep.ts";

export function runStartupSweep(ctx: Pick<ExtensionContext, "hasUI" | "ui">): void {
  sweepStalePromptDirs();
  let notices: string[];
  try {
    notices = reapOrphanedTasks(agentDir(), defaultSweepDeps(readRunSettings())).map(reapedNotice);
  } catch (error) {
    notices = [`Subagent clean-up of runs left by an ended pi failed: ${error instanceof Error ? error.message : String(error)}`];
  }
  for (const notice of notices) {
    try {
      if (ctx.hasUI) ctx.ui.notify(notice, "warning");
      else process.stderr.write(`${notice}\n`);
    } catch {
      // a stale context after a quick /reload: the record on disk still says it
    }
  }
}
