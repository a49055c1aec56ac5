import { limitedOutput } from "./output-limit.ts";
import type { TaskRecord } from "./types.ts";

/**
 * The structured result carried in a tool result's or a `[subagent-result]` message's `details`: for
 * programs and renderers, never sent to the model. The record's own fields, plus `sessionId` (the same as the
 * task id) under the name the spec gives it; `durationMs` is always present.
 */
export type SubagentResultDetails = Pick<
  TaskRecord,
  "taskId" | "agent" | "task" | "status" | "exitCode" | "stopReason" | "errorMessage" | "cancelledBy" | "cancelReason" | "durationMs" | "usage" | "model" | "output"
> & { sessionId: string };

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
    // Details are kept in the session file and drawn in the TUI: the cut output, like the model's.
    output: limitedOutput(record),
  };
}
