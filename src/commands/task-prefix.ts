/**
 * Resolving what the person typed after a command to one task id (or batch or chain id). A full id always matches
 * itself; anything shorter must be a start or an end of at least MIN_PREFIX_LENGTH characters that only one
 * candidate has, so a short, copied or half-typed id never picks the wrong task. The end is what the widget and
 * the cards show (`src/shared/short-id.ts`): the start of ids made together is the same clock time. Pure: the
 * caller supplies the candidates.
 */

import { isTaskIdPrefix } from "../shared/task-id.ts";

/** The shortest start or end accepted: shorter ones would match too much to be a deliberate choice. */
export const MIN_PREFIX_LENGTH = 4;

export interface TaskCandidate {
  taskId: string;
}

export type PrefixResolution<T extends TaskCandidate> = { kind: "empty" }
  | { kind: "too-short"; prefix: string }
  | { kind: "unknown"; prefix: string }
  | { kind: "ambiguous"; prefix: string; matches: T[] }
  | { kind: "found"; task: T };

/** Task ids are lowercase; what was typed is trimmed and lowercased before matching. */
export function normalizeTaskInput(input: string): string {
  return input.trim().toLowerCase();
}

/** Whether `typed` (normalized) is the start or the end of the id. */
export function idMatches(taskId: string, typed: string): boolean {
  return taskId.startsWith(typed) || taskId.endsWith(typed);
}

export function resolveTaskPrefix<T extends TaskCandidate>(input: string, candidates: readonly T[]): PrefixResolution<T> {
  const prefix = normalizeTaskInput(input);
  if (prefix === "") return { kind: "empty" };
  const exact = candidates.find((candidate) => candidate.taskId === prefix);
  if (exact) return { kind: "found", task: exact };
  // Anything but hex digits and dashes cannot start a task id; it is not compared, and never reaches the disk.
  if (!isTaskIdPrefix(prefix)) return { kind: "unknown", prefix };
  if (prefix.length < MIN_PREFIX_LENGTH) return { kind: "too-short", prefix };
  const matches: T[] = [];
  const seen: Set<string> = new Set();
  for (const candidate of candidates) {
    if (!idMatches(candidate.taskId, prefix) || seen.has(candidate.taskId)) continue;
    seen.add(candidate.taskId);
    matches.push(candidate);
  }
  if (matches.length === 0) return { kind: "unknown", prefix };
  if (matches.length === 1) return { kind: "found", task: (matches[0] as T) };
  return { kind: "ambiguous", prefix, matches };
}
