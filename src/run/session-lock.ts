/**
 * One run per session at a time, across processes: a `run.lock` file in the task folder, created exclusively
 * and holding the owner's pid. A lock whose owner process is gone is stale and taken over.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "./process-tree.ts";
import { taskDir } from "./session-file.ts";

export const LOCK_FILE_NAME = "run.lock";

interface LockContent {
  pid: number;
  agent: string;
  since: number;
}

export type LockResult = { acquired: true; release: () => void } | { acquired: false; holder: string };

function describeHolder(content: LockContent | undefined): string {
  if (!content) return "by another run";
  const where = content.pid === process.pid ? "in this pi" : `in pi process ${content.pid}`;
  return `agent ${content.agent}, ${where}`;
}

export function acquireSessionLock(agentDir: string, taskId: string, agent: string): LockResult {
  const file = join(taskDir(agentDir, taskId), LOCK_FILE_NAME);
  const content: LockContent = { pid: process.pid, agent, since: Date.now() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(content), { flag: "wx", mode: 0o600 });
      let released = false;
      return {
        acquired: true,
        release: () => {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let holder: LockContent | undefined;
      try {
        holder = JSON.parse(readFileSync(file, "utf8")) as LockContent;
      } catch {
        holder = undefined;
      }
      if (holder && typeof holder.pid === "number" && isAlive(holder.pid)) {
        return { acquired: false, holder: describeHolder(holder) };
      }
      // The owner died without releasing it: take it over.
      rmSync(file, { force: true });
    }
  }
  return { acquired: false, holder: "by another run" };
}
