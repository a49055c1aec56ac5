/**
 * Clean-up of what an earlier pi left when it was killed hard: its runs still locked (ended, recorded as
 * failed, reported once) and its temp prompt folders. Done once per process, after the first `session_start`
 * (setImmediate), so it is never on pi's start-up path. Only the main pi does it, never a subagent.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { sweepStalePromptDirs } from "../run/prompt-dir.ts";
import { isInsideSubagent } from "../shared/depth.ts";
import { agentDir } from "../shared/paths.ts";
import { readRunSettings } from "../shared/run-settings.ts";
import { defaultSweepDeps, reapedNotice, reapOrphanedTasks } from "./orphan-sweep.ts";

let sweptInThisProcess = false;

export function registerStartupSweep(pi: ExtensionAPI): void {
  if (isInsideSubagent()) return;
  pi.on("session_start", (_event, ctx) => {
    if (sweptInThisProcess) return;
    sweptInThisProcess = true;
    setImmediate(() => {
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
    });
  });
}
