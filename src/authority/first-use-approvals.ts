/**
 * The person's first-use approvals of project agents: `<agent dir>/subagent-trusted-agents.json`, one entry per
 * agent file (its real path) holding the SHA-256 of the exact text approved. A run of that file is unasked while
 * its text is unchanged; any edit asks again. User-level on purpose: a project cannot approve its own agents.
 * Written with the locked, atomic JSON edit every config file uses; read under the state-file rules (regular file,
 * capped, no link followed).
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { readStateJsonSync, SMALL_STATE_MAX_BYTES } from "../shared/safe-write.ts";
import { editJsonObjectFile, type JsonObject } from "../config/write.ts";

const FIRST_USE_APPROVALS_FILE_NAME = "subagent-trusted-agents.json";

interface ApprovalEntry {
  sha256: string;
  name: string;
  approvedAt: string;
}

export function firstUseApprovalsPath(agentDir: string): string {
  return join(agentDir, FIRST_USE_APPROVALS_FILE_NAME);
}

/** The key of an agent file: its real path, so two routes to one file are one approval. */
function keyOf(filePath: string): string {
  try {
    return realpathSync(filePath);
  } catch {
    return filePath;
  }
}

/** A missing, broken or hostile file approves nothing: the person is asked again, which is the safe side. */
function readApprovals(agentDir: string): Record<string, unknown> {
  const parsed = readStateJsonSync(firstUseApprovalsPath(agentDir), SMALL_STATE_MAX_BYTES);
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

/** Whether the person approved exactly this text of this file. */
export function isApproved(agentDir: string, filePath: string, sha256: string): boolean {
  const entry = readApprovals(agentDir)[keyOf(filePath)];
  return typeof entry === "object" && entry !== null && (entry as { sha256?: unknown }).sha256 === sha256;
}

/** Remembers an approval (replacing the file's earlier one). */
export async function rememberApproval(
  agentDir: string,
  filePath: string,
  sha256: string,
  name: string,
  now: Date = new Date(),
): Promise<void> {
  const entry: ApprovalEntry = { sha256, name, approvedAt: now.toISOString() };
  const value: JsonObject = new Map(Object.entries(entry));
  await editJsonObjectFile(
    firstUseApprovalsPath(agentDir),
    (root) => {
      root.set(keyOf(filePath), value);
      return true;
    },
    true,
  );
}
