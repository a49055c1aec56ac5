/**
 * The stderr side of a blocking run in print and JSON mode (src/run/terminal-progress.ts says which lines,
 * and when). Only the main pi writes them (depth 0: a subagent's stderr is no person's terminal), never stdout,
 * and whether stderr is a terminal or not: a person who pipes or captures stdout still sees them, and a script
 * that wants a quiet stderr sets PI_SUBAGENT_PROGRESS=0. A failed write is ignored.
 */
import { progressLinesWanted, TerminalProgress } from "../run/terminal-progress.ts";
import { readSubagentDepth } from "../shared/depth.ts";
import { formatUsage } from "../shared/format.ts";
import type { TaskRecord } from "../records/types.ts";
import type { AppMode } from "../shared/mode.ts";
import type { SyncProgress } from "./run-sync.ts";

export interface StderrProgress {
  tick: (progress: SyncProgress) => void;
  end: (record: Pick<TaskRecord, "status" | "durationMs" | "usage">) => void;
}

export interface StderrProgressOptions {
  env?: NodeJS.ProcessEnv;
  write?: (text: string) => void;
}

/** Writes the start line and returns the run's other two hooks; undefined where no lines are written. */
export function openStderrProgress(mode: AppMode, agent: string, taskId: string, options: StderrProgressOptions = {}): StderrProgress | undefined {
  const env = options.env ?? process.env;
  if ((mode !== "print" && mode !== "json") || readSubagentDepth(env) !== 0 || !progressLinesWanted(env)) return undefined;
  const write = (line: string | undefined) => {
    if (line === undefined) return;
    try {
      (options.write ?? ((text: string) => void process.stderr.write(text)))(`${line}\n`);
    } catch {
      // a closed stderr: nothing to tell
    }
  };
  const lines = new TerminalProgress(agent, taskId);
  write(lines.start());
  return {
    tick: (progress) => write(lines.tick({ elapsedMs: progress.elapsedMs, phase: progress.phase, lastTool: progress.lastTool, toolCalls: progress.toolCalls ?? 0 })),
    end: (record) => write(lines.end(record.status, record.durationMs, formatUsage(record.usage))),
  };
}
