/**
 * The index of results recorded but not yet delivered: one small file per task in
 * `<agent dir>/subagent-sessions/.outbox/`, naming the main session it belongs to. A session start reads only
 * this folder (normally empty) instead of every task record, so redelivery costs nothing on pi's start-up.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { subagentSessionsDir } from "../shared/paths.ts";
import { isTaskId } from "../tasks/task-id.ts";

export const OUTBOX_DIR_NAME = ".outbox";

interface OutboxEntry {
  taskId: string;
  parentSessionId?: string;
  finishedAt: number;
}

function outboxDir(agentDir: string): string {
  return join(subagentSessionsDir(agentDir), OUTBOX_DIR_NAME);
}

export function addToOutbox(agentDir: string, entry: OutboxEntry): void {
  const dir = outboxDir(agentDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, `${entry.taskId}.json`), JSON.stringify(entry), { mode: 0o600 });
}

export function removeFromOutbox(agentDir: string, taskId: string): void {
  rmSync(join(outboxDir(agentDir), `${taskId}.json`), { force: true });
}

/** Undelivered task ids of one main session, oldest result first. */
export function pendingFor(agentDir: string, parentSessionId: string): string[] {
  let names: string[];
  try {
    names = readdirSync(outboxDir(agentDir));
  } catch {
    return [];
  }
  const entries: OutboxEntry[] = [];
  for (const name of names) {
    if (!name.endsWith(".json") || !isTaskId(name.slice(0, -5))) continue;
    try {
      const entry = JSON.parse(readFileSync(join(outboxDir(agentDir), name), "utf8")) as OutboxEntry;
      if (entry.parentSessionId === parentSessionId) entries.push(entry);
    } catch {
      // a half-written entry: the record itself is still on disk
    }
  }
  return entries.sort((a, b) => a.finishedAt - b.finishedAt).map((entry) => entry.taskId);
}
