// @ts-check
/**
 * The index of results recorded but not yet delivered: one small file per task in
 * `<agent dir>/subagent-sessions/.outbox/`, naming the main session it belongs to and its owner, the pi process
 * that ran the task. A session start reads only this folder (normally empty) instead of every task record, so
 * redelivery costs nothing on pi's start-up.
 *
 * Ownership keeps two pi windows on one session from delivering a result twice: only the owner delivers while
 * it lives; another process takes an entry over only once the owner is dead, and the takeover is a rename, so
 * exactly one process wins it.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../shared/atomic-file.js";
import { subagentSessionsDir } from "../shared/paths.js";
import { isIdentityAlive, isSameProcess, ownIdentity } from "../run/proc-identity.js";
import { isTaskId } from "../tasks/task-id.js";
/** @import { ProcessIdentity } from "../run/proc-identity.js" */

export const OUTBOX_DIR_NAME = ".outbox";

/**
 * @typedef {object} OutboxEntry
 * @property {string} taskId
 * @property {string} [parentSessionId]
 * @property {number} finishedAt
 * @property {ProcessIdentity} [owner] The pi process that ran the task; absent in entries written before owners
 *   existed (anyone may deliver).
 */

/**
 * @param {string} agentDir
 * @returns {string}
 */
export function outboxDir(agentDir) {
  return join(subagentSessionsDir(agentDir), OUTBOX_DIR_NAME);
}

/**
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {string}
 */
function entryPath(agentDir, taskId) {
  return join(outboxDir(agentDir), `${taskId}.json`);
}

/**
 * Adds (or replaces) an entry; throws when the folder cannot be written (the caller reports it).
 * @param {string} agentDir
 * @param {OutboxEntry} entry
 * @returns {void}
 */
export function addToOutbox(agentDir, entry) {
  mkdirSync(outboxDir(agentDir), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(entryPath(agentDir, entry.taskId), JSON.stringify(entry));
}

/**
 * Removes an entry; throws when the folder cannot be written (a missing entry is fine).
 * @param {string} agentDir
 * @param {string} taskId
 * @returns {void}
 */
export function removeFromOutbox(agentDir, taskId) {
  rmSync(entryPath(agentDir, taskId), { force: true });
}

/**
 * @param {string} agentDir
 * @returns {OutboxEntry[]}
 */
function readEntries(agentDir) {
  /** @type {string[]} */
  let names;
  try {
    names = readdirSync(outboxDir(agentDir));
  } catch {
    return [];
  }
  /** @type {OutboxEntry[]} */
  const entries = [];
  for (const name of names) {
    if (!name.endsWith(".json") || !isTaskId(name.slice(0, -5))) continue;
    try {
      entries.push(/** @type {OutboxEntry} */ (JSON.parse(readFileSync(join(outboxDir(agentDir), name), "utf8"))));
    } catch {
      // a half-written or unreadable entry: the record itself is still on disk
    }
  }
  return entries;
}

/**
 * Who may deliver an entry now, seen from `self`. Pure apart from `alive`.
 * @param {Pick<OutboxEntry, "owner">} entry
 * @param {ProcessIdentity} self
 * @param {(owner: ProcessIdentity) => boolean} alive
 * @returns {"mine" | "owner-alive" | "orphaned"}
 */
export function deliveryRight(entry, self, alive) {
  if (!entry.owner) return "orphaned";
  if (isSameProcess(entry.owner, self)) return "mine";
  return alive(entry.owner) ? "owner-alive" : "orphaned";
}

/**
 * Makes this process the owner of an orphaned entry. The entry is first renamed to a name unique to this
 * process: rename is atomic, so when two processes race only one finds the file. Returns false when another
 * process won (or the folder cannot be written; the entry is then left for a later try).
 * @param {string} agentDir
 * @param {OutboxEntry} entry
 * @param {ProcessIdentity} [self]
 * @returns {boolean}
 */
export function takeOver(agentDir, entry, self = ownIdentity()) {
  const from = entryPath(agentDir, entry.taskId);
  const claimed = `${from}.${self.pid}.claim`;
  try {
    renameSync(from, claimed);
  } catch {
    return false;
  }
  // The entry judged orphaned may have been taken over by another process since it was read: then it now
  // names that (live) owner, and goes back untouched.
  /** @type {OutboxEntry | undefined} */
  let current;
  try {
    current = /** @type {OutboxEntry} */ (JSON.parse(readFileSync(claimed, "utf8")));
  } catch {
    current = undefined;
  }
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

/**
 * @typedef {object} PendingOptions
 * @property {ProcessIdentity} [self]
 * @property {(owner: ProcessIdentity) => boolean} [alive]
 */

/**
 * Undelivered task ids of one main session that this process may deliver now, oldest result first: its own
 * entries, and entries whose owner died (taken over on the way). Entries of a live other owner are skipped.
 * @param {string} agentDir
 * @param {string} parentSessionId
 * @param {PendingOptions} [options]
 * @returns {string[]}
 */
export function pendingFor(agentDir, parentSessionId, options = {}) {
  const self = options.self ?? ownIdentity();
  const alive = options.alive ?? isIdentityAlive;
  /** @type {OutboxEntry[]} */
  const mine = [];
  for (const entry of readEntries(agentDir)) {
    if (entry.parentSessionId !== parentSessionId) continue;
    const right = deliveryRight(entry, self, alive);
    if (right === "mine" || (right === "orphaned" && takeOver(agentDir, entry, self))) mine.push(entry);
  }
  return mine.sort((a, b) => a.finishedAt - b.finishedAt).map((entry) => entry.taskId);
}
