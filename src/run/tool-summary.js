// @ts-check
import { oneLine } from "../shared/format.js";

/**
 * Which argument best says what a call does, for pi's built-in tools.
 * @type {Record<string, string[]>}
 */
const KEY_ARGUMENT = {
  bash: ["command"],
  read: ["path", "file_path"],
  write: ["path", "file_path"],
  edit: ["path", "file_path"],
  grep: ["pattern"],
  find: ["pattern", "path"],
  ls: ["path"],
  subagent: ["agent"],
};

/**
 * A short, one-line summary of a tool call's arguments (a command, a path, a pattern).
 * @param {string} toolName
 * @param {unknown} args
 * @param {number} [max]
 * @returns {string}
 */
export function summarizeToolArgs(toolName, args, max = 60) {
  if (!args || typeof args !== "object") return "";
  const record = /** @type {Record<string, unknown>} */ (args);
  for (const key of KEY_ARGUMENT[toolName] ?? []) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return oneLine(value, max);
  }
  for (const value of Object.values(record)) {
    if (typeof value === "string" && value.trim()) return oneLine(value, max);
  }
  return "";
}
