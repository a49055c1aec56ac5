/**
 * Results recorded but not yet delivered, and telling the person once when one could not be saved.
 */
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import {
  writeFileAtomicSync,
  readStateFileSync,
  readStateJsonSync,
  SMALL_STATE_MAX_BYTES,
} from "../shared/safe-write.ts";
import { subagentSessionsDir } from "../shared/this-process.ts";
import { isIdentityAlive, isSameProcess, ownIdentity, type ProcessIdentity } from "../shared/proc-identity.ts";
import { isTaskId } from "../shared/nesting.ts";
import { recordPath } from "../records/record-store.ts";
import type { TaskRecord } from "../records/record.ts";

/*
 * The index of results recorded but not yet delivered: one small file per task in
 * `<agent dir>/subagent-sessions/.outbox/`, naming the main session it belongs to and its owner, the pi process
 * that ran the task. A session start reads only this folder (normally empty) instead of every task record, so
 * redelivery costs nothing on pi's start-up.
 *
 * Ownership keeps two pi windows on one session from delivering a result twice: only the owner delivers while
 * it lives; another process takes an entry over only once the owner is dead, and the takeover is a rename, so
 * exactly one process wins it.
 *
 * An entry that is not one (not JSON, JSON `null`, the wrong shape, a link, a FIFO, too large) is moved aside
 * as `<name>.bad` in the same folder and the others are still delivered: one bad file must never stop every
 * redelivery. The record it pointed to, if any, stays in its task folder.
 */
const OUTBOX_DIR_NAME = ".outbox";

export interface OutboxEntry {
  taskId: string;
  parentSessionId?: string;
  finishedAt: number;
  /**
   * The pi process that ran the task; absent in entries written before owners
   * existed (anyone may deliver).
   */
  owner?: ProcessIdentity;
}

export function outboxDir(agentDir: string): string {
  return join(subagentSessionsDir(agentDir), OUTBOX_DIR_NAME);
}

function entryPath(agentDir: string, taskId: string): string {
  return join(outboxDir(agentDir), `${taskId}.json`);
}

/** Adds (or replaces) an entry; throws when the folder cannot be written (the caller reports it). */
export function addToOutbox(agentDir: string, entry: OutboxEntry): void {
  mkdirSync(outboxDir(agentDir), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(entryPath(agentDir, entry.taskId), JSON.stringify(entry));
}

/** Removes an entry; throws when the folder cannot be written (a missing entry is fine). */
export function removeFromOutbox(agentDir: string, taskId: string): void {
  rmSync(entryPath(agentDir, taskId), { force: true });
}

/** The suffix a bad entry is renamed to (no longer `.json`, so no listing takes it for an entry). */
const QUARANTINE_SUFFIX = ".bad";

function isIdentity(value: unknown): value is ProcessIdentity {
  if (typeof value !== "object" || value === null) return false;
  const { pid, start } = value as { pid?: unknown; start?: unknown };
  return (
    typeof pid === "number" && Number.isInteger(pid) && pid > 0 && (start === undefined || typeof start === "string")
  );
}

/** Whether `value` is an entry, and the one for `taskId` (the file's name). */
function isOutboxEntry(value: unknown, taskId: string): value is OutboxEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const entry = value as Partial<Record<keyof OutboxEntry, unknown>>;
  return (
    entry.taskId === taskId &&
    typeof entry.finishedAt === "number" &&
    (entry.parentSessionId === undefined || typeof entry.parentSessionId === "string") &&
    (entry.owner === undefined || isIdentity(entry.owner))
  );
}

/** An entry that may not have been written by this package moves aside (see the opening comment). */
function quarantine(path: string): void {
  try {
    renameSync(path, `${path}${QUARANTINE_SUFFIX}`);
  } catch {
    // read-only folder: skipped again next time, and the others are still delivered
  }
}

function readEntries(agentDir: string): OutboxEntry[] {
  let names: string[];
  try {
    names = readdirSync(outboxDir(agentDir));
  } catch {
    return [];
  }
  const entries: OutboxEntry[] = [];
  for (const name of names) {
    const taskId = name.slice(0, -5);
    if (!name.endsWith(".json") || !isTaskId(taskId)) continue;
    const path = join(outboxDir(agentDir), name);
    const read = readStateFileSync(path, SMALL_STATE_MAX_BYTES);
    if (!read.ok) {
      // Gone since the listing (delivered, or claimed by another pi): nothing wrong with it.
      if (read.kind !== "missing") quarantine(path);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(read.text) as unknown;
    } catch {
      parsed = undefined;
    }
    if (isOutboxEntry(parsed, taskId)) entries.push(parsed);
    else quarantine(path);
  }
  return entries;
}

/** Who may deliver an entry now, seen from `self`. Pure apart from `alive`. */
export function deliveryRight(
  entry: Pick<OutboxEntry, "owner">,
  self: ProcessIdentity,
  alive: (owner: ProcessIdentity) => boolean,
): "mine" | "owner-alive" | "orphaned" {
  if (!entry.owner) return "orphaned";
  if (isSameProcess(entry.owner, self)) return "mine";
  return alive(entry.owner) ? "owner-alive" : "orphaned";
}

/**
 * Makes this process the owner of an orphaned entry. The entry is first renamed to a name unique to this
 * process: rename is atomic, so when two processes race only one finds the file. Returns false when another
 * process won (or the folder cannot be written; the entry is then left for a later try).
 */
export function takeOver(agentDir: string, entry: OutboxEntry, self: ProcessIdentity = ownIdentity()): boolean {
  const from = entryPath(agentDir, entry.taskId);
  const claimed = `${from}.${self.pid}.claim`;
  try {
    renameSync(from, claimed);
  } catch {
    return false;
  }
  // The entry judged orphaned may have been taken over by another process since it was read: then it now
  // names that (live) owner, and goes back untouched.
  const parsed = readStateJsonSync(claimed, SMALL_STATE_MAX_BYTES);
  const current = isOutboxEntry(parsed, entry.taskId) ? parsed : undefined;
  if (!current || JSON.stringify(current.owner ?? null) !== JSON.stringify(entry.owner ?? null)) {
    try {
      renameSync(claimed, from);
    } catch {
      // the record on disk still holds the result
    }
    return false;
  }
  try {
    writeFileAtomicSync(from, JSON.stringify({ ...entry, owner: self }));
    rmSync(claimed, { force: true });
  } catch {
    // Could not write the new entry: put the old one back, so the result is not forgotten.
    try {
      renameSync(claimed, from);
    } catch {
      // the record on disk still holds the result
    }
    return false;
  }
  return true;
}

export interface PendingOptions {
  self?: ProcessIdentity;
  alive?: (owner: ProcessIdentity) => boolean;
}

/**
 * Undelivered task ids of one main session that this process may deliver now, oldest result first: its own
 * entries, and entries whose owner died (taken over on the way). Entries of a live other owner are skipped.
 */
export function pendingFor(agentDir: string, parentSessionId: string, options: PendingOptions = {}): string[] {
  const self = options.self ?? ownIdentity();
  const alive = options.alive ?? isIdentityAlive;
  const mine: OutboxEntry[] = [];
  for (const entry of readEntries(agentDir)) {
    if (entry.parentSessionId !== parentSessionId) continue;
    const right = deliveryRight(entry, self, alive);
    if (right === "mine" || (right === "orphaned" && takeOver(agentDir, entry, self))) mine.push(entry);
  }
  return mine.sort((a, b) => a.finishedAt - b.finishedAt).map((entry) => entry.taskId);
}

/*
 * Telling the person, once, that a result could not be saved. A failed record or outbox write (read-only or
 * full disk, a file where a folder should be) must not stop delivery, which goes on from memory; but the person
 * should know that the result is not on disk, and where the write failed, because a result only in memory is
 * lost if pi exits before it reaches the conversation. One notice per place that failed, not one per task.
 */
function reason(error: unknown): string {
  // Node's fs messages start with the code already ("EROFS: read-only file system, open '…'").
  return error instanceof Error ? error.message : String(error);
}

/** What still happens to the result, by path: sent from memory (background) or returned by the tool (blocking). */
const FROM_MEMORY =
  "The result is still delivered, from memory; it is not on disk, so it is lost if pi exits before it arrives.";
export const RETURNED =
  "The result is still returned to the model; only the record on disk (for /subagent-result) is missing.";

/** The notice text (exact; docs/troubleshooting.md quotes it). */
export function saveFailureNotice(
  what: "record" | "outbox entry",
  record: Pick<TaskRecord, "agent" | "taskId">,
  path: string,
  error: unknown,
  outcome: string = FROM_MEMORY,
): string {
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
  record(
    record: Pick<TaskRecord, "agent" | "taskId">,
    error: unknown,
    path = recordPath(this.agentDir, record.taskId),
  ): void {
    // Every task folder has its own path: the place that failed is the folder holding them all.
    this.report(`record:${dirname(dirname(path))}`, `${saveFailureNotice("record", record, path, error)} ${LATER}`);
  }

  outbox(record: Pick<TaskRecord, "agent" | "taskId">, error: unknown): void {
    const dir = outboxDir(this.agentDir);
    this.report(`outbox:${dir}`, `${saveFailureNotice("outbox entry", record, dir, error)} ${LATER}`);
  }

  /** A task's run files that could not be removed (see cleanupFailureNotice): once per agent dir. */
  cleanup(record: TaskRecord, error: unknown): void {
    this.report(
      `cleanup:${this.agentDir}`,
      `${cleanupFailureNotice(record, error)} Later clean-up failures there are not reported again.`,
    );
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
