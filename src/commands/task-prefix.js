// @ts-check
/**
 * Resolving what the person typed after a command to one task id. A full id always matches itself; anything
 * shorter must be a prefix of at least MIN_PREFIX_LENGTH characters that only one candidate starts with, so a
 * short, copied or half-typed id never picks the wrong task. Pure: the caller supplies the candidates.
 */

import { isTaskIdPrefix } from "../tasks/task-id.js";

/** The shortest prefix accepted: shorter ones would match too much to be a deliberate choice. */
export const MIN_PREFIX_LENGTH = 4;

/**
 * @typedef {object} TaskCandidate
 * @property {string} taskId
 */

/**
 * @template {TaskCandidate} T
 * @typedef {{ kind: "empty" }
 *   | { kind: "too-short"; prefix: string }
 *   | { kind: "unknown"; prefix: string }
 *   | { kind: "ambiguous"; prefix: string; matches: T[] }
 *   | { kind: "found"; task: T }} PrefixResolution
 */

/**
 * Task ids are lowercase; what was typed is trimmed and lowercased before matching.
 * @param {string} input
 * @returns {string}
 */
export function normalizeTaskInput(input) {
  return input.trim().toLowerCase();
}

/**
 * @template {TaskCandidate} T
 * @param {string} input
 * @param {readonly T[]} candidates
 * @returns {PrefixResolution<T>}
 */
export function resolveTaskPrefix(input, candidates) {
  const prefix = normalizeTaskInput(input);
  if (prefix === "") return { kind: "empty" };
  const exact = candidates.find((candidate) => candidate.taskId === prefix);
  if (exact) return { kind: "found", task: exact };
  // Anything but hex digits and dashes cannot start a task id; it is not compared, and never reaches the disk.
  if (!isTaskIdPrefix(prefix)) return { kind: "unknown", prefix };
  if (prefix.length < MIN_PREFIX_LENGTH) return { kind: "too-short", prefix };
  /** @type {T[]} */
  const matches = [];
  /** @type {Set<string>} */
  const seen = new Set();
  for (const candidate of candidates) {
    if (!candidate.taskId.startsWith(prefix) || seen.has(candidate.taskId)) continue;
    seen.add(candidate.taskId);
    matches.push(candidate);
  }
  if (matches.length === 0) return { kind: "unknown", prefix };
  if (matches.length === 1) return { kind: "found", task: /** @type {T} */ (matches[0]) };
  return { kind: "ambiguous", prefix, matches };
}
