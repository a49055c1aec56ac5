/**
 * The clean-up itself (see register-startup-sweep.js): runs whose pi died (with the agent's body each was started
 * with), and the temp prompt folders earlier versions of the package left behind.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { sweepStalePromptDirs } from "../run/prompt-dir.js";
import { agentDir } from "../shared/paths.js";
import { readRunSettings } from "../shared/run-settings.js";
import { defaultSweepDeps, reapedNotice, reapOrphanedTasks } from "./orphan-sweep.ts";

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
