// @ts-check
/**
 * Telling the person, once, that a result could not be saved. A failed record or outbox write (read-only or
 * full disk, a file where a folder should be) must not stop delivery, which goes on from memory; but the person
 * should know that the result is not on disk, and where the write failed, because a result only in memory is
 * lost if pi exits before it reaches the conversation. One notice per place that failed, not one per task.
 */
import { dirname } from "node:path";
import { outboxDir } from "./outbox.js";
import { recordPath } from "../tasks/record-store.js";
/** @import { TaskRecord } from "../tasks/types.ts" */

/**
 * @param {unknown} error
 * @returns {string}
 */
function reason(error) {
  // Node's fs messages start with the code already ("EROFS: read-only file system, open '…'").
  return error instanceof Error ? error.message : String(error);
}

/** What still happens to the result, by path: sent from memory (background) or returned by the tool (blocking). */
export const FROM_MEMORY = "The result is still delivered, from memory; it is not on disk, so it is lost if pi exits before it arrives.";
export const RETURNED = "The result is still returned to the model; only the record on disk (for /subagent-result) is missing.";

/**
 * The notice text (exact; ADVANCED.md quotes it).
 * @param {"record" | "outbox entry"} what
 * @param {Pick<TaskRecord, "agent" | "taskId">} record
 * @param {string} path
 * @param {unknown} error
 * @param {string} [outcome]
 * @returns {string}
 */
export function saveFailureNotice(what, record, path, error, outcome = FROM_MEMORY) {
  return `subagent: could not save the ${what} of ${record.agent} task ${record.taskId} at ${path} (${reason(error)}). ${outcome}`;
}

const LATER = "Later save failures there are not reported again.";

export class SaveFailureReporter {
  /**
   * @private
   * @readonly
   * @type {string}
   */
  agentDir;

  /**
   * @private
   * @readonly
   * @type {(text: string) => void}
   */
  notify;

  /**
   * @private
   * @readonly
   * @type {Set<string>}
   */
  reported = new Set();

  /**
   * @param {string} agentDir
   * @param {(text: string) => void} notify
   */
  constructor(agentDir, notify) {
    this.agentDir = agentDir;
    this.notify = notify;
  }

  /**
   * @param {TaskRecord} record
   * @param {unknown} error
   * @returns {void}
   */
  record(record, error) {
    const path = recordPath(this.agentDir, record.taskId);
    // Every task folder has its own path: the place that failed is the folder holding them all.
    this.report(`record:${dirname(dirname(path))}`, `${saveFailureNotice("record", record, path, error)} ${LATER}`);
  }

  /**
   * @param {TaskRecord} record
   * @param {unknown} error
   * @returns {void}
   */
  outbox(record, error) {
    const dir = outboxDir(this.agentDir);
    this.report(`outbox:${dir}`, `${saveFailureNotice("outbox entry", record, dir, error)} ${LATER}`);
  }

  /**
   * @private
   * @param {string} place
   * @param {string} text
   * @returns {void}
   */
  report(place, text) {
    if (this.reported.has(place)) return;
    this.reported.add(place);
    try {
      this.notify(text);
    } catch {
      // no UI to tell (a stale context): the record's deliveryError and the result itself still say it
    }
  }
}
