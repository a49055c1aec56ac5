import type { UsageTotals } from "../shared/format.ts";
import type { RunStatus } from "../run/types.ts";
import type { CancelledBy, TaskRecord } from "./types.ts";

/**
 * The structured result carried in a tool result's or a `[subagent-result]` message's `details`: for
 * programs and renderers, never sent to the model.
 */
export interface SubagentResultDetails {
  taskId: string;
  agent: string;
  task: string;
  status: RunStatus;
  exitCode: number | null;
  stopReason?: string;
  errorMessage?: string;
  cancelledBy?: CancelledBy;
  cancelReason?: string;
  /** Run time in milliseconds (always present). */
  durationMs: number;
  usage: UsageTotals;
  model?: string;
  sessionId: string;
  output: string;
}

export function detailsFromRecord(record: TaskRecord): SubagentResultDetails {
  return {
    taskId: record.taskId,
    agent: record.agent,
    task: record.task,
    status: record.status,
    exitCode: record.exitCode,
    stopReason: record.stopReason,
    errorMessage: record.errorMessage,
    cancelledBy: record.cancelledBy,
    cancelReason: record.cancelReason,
    durationMs: record.durationMs,
    usage: record.usage,
    model: record.model,
    sessionId: record.taskId,
    output: record.output,
  };
}
