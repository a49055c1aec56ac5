/**
 * Telling the person, once, that a result could not be saved. A failed record or outbox write (read-only or
 * full disk, a file where a folder should be) must not stop delivery, which goes on from memory; but the person
 * should know that the result is not on disk, and where the write failed, because a result only in memory is
 * lost if pi exits before it reaches the conversation. One notice per place that failed, not one per task.
 */
import { dirname } from "node:path";
import { outboxDir } from "./outbox.ts";
import { recordPath } from "../records/record-store.ts";
import type { TaskRecord } from "../records/types.ts";

function reason(error: unknown): string {
  // Node's fs messages start with the code already ("EROFS: read-only file system, open '…'").
  return error instanceof Error ? error.message : String(error);
}

/** What still happens to the result, by path: sent from memory (background) or returned by the tool (blocking). */
export const FROM_MEMORY = "The result is still delivered, from memory; it is not on disk, so it is lost if pi exits before it arrives.";
export const RETURNED = "The result is still returned to the model; only the record on disk (for /subagent-result) is missing.";

/** The notice text (exact; docs/troubleshooting.md quotes it). */
export function saveFailureNotice(what: "record" | "outbox entry", record: Pick<TaskRecord, "agent" | "taskId">, path: string, error: unknown, outcome: string = FROM_MEMORY): string {
  return `subagent: could not save the ${what} of ${record.agent} task ${record.taskId} at ${path} (${reason(error)}). ${outcome}`;
}

const LATER = "Later save failures there are not reported again.";

/**
 * The notice for a task's files that could not be removed at its end (the agent's prompt file, `run.lock`;
 * exact, docs/troubleshooting.md quotes it). The result itself is delivered all the same.
 */
export function cleanupFailureNotice(record: Pick<TaskRecord, "agent" | "taskId">, error: unknown): string {
  return `subagent: could not remove the run files of ${record.agent} task ${record.taskId} (${reason(error)}). The result is delivered all the same; the next start of pi in this agent dir removes what is left.`;
}

export class SaveFailureReporter {
  private readonly agentDir: string;

  private readonly notify: (text: string) => void;

  private readonly reported: Set<string> = new Set();

  constructor(agentDir: string, notify: (text: string) => void) {
    this.agentDir = agentDir;
    this.notify = notify;
  }

  /** `path`: where the record was to be written (default: the task's record.json). */
  record(record: Pick<TaskRecord, "agent" | "taskId">, error: unknown, path = recordPath(this.agentDir, record.taskId)): void {
    // Every task folder has its own path: the place that failed is the folder holding them all.
    this.report(`record:${dirname(dirname(path))}`, `${saveFailureNotice("record", record, path, error)} ${LATER}`);
  }

  outbox(record: Pick<TaskRecord, "agent" | "taskId">, error: unknown): void {
    const dir = outboxDir(this.agentDir);
    this.report(`outbox:${dir}`, `${saveFailureNotice("outbox entry", record, dir, error)} ${LATER}`);
  }

  /** A task's run files that could not be removed (see cleanupFailureNotice): once per agent dir. */
  cleanup(record: TaskRecord, error: unknown): void {
    this.report(`cleanup:${this.agentDir}`, `${cleanupFailureNotice(record, error)} Later clean-up failures there are not reported again.`);
  }

  private report(place: string, text: string): void {
    if (this.reported.has(place)) return;
    this.reported.add(place);
    try {
      this.notify(text);
    } catch {
      // no UI to tell (a stale context): the record's deliveryError and the result itself still say it
    }
  }
}
