import { oneLine } from "../shared/format.ts";

/** Which argument best says what a call does, for pi's built-in tools. */
const KEY_ARGUMENT: Record<string, string[]> = {
  bash: ["command"],
  read: ["path", "file_path"],
  write: ["path", "file_path"],
  edit: ["path", "file_path"],
  grep: ["pattern"],
  find: ["pattern", "path"],
  ls: ["path"],
  subagent: ["agent"],
};

/** A short, one-line summary of a tool call's arguments (a command, a path, a pattern). */
export function summarizeToolArgs(toolName: string, args: unknown, max: number = 60): string {
  if (!args || typeof args !== "object") return "";
  const record = (args as Record<string, unknown>);
  for (const key of KEY_ARGUMENT[toolName] ?? []) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return oneLine(value, max);
  }
  for (const value of Object.values(record)) {
    if (typeof value === "string" && value.trim()) return oneLine(value, max);
  }
  return "";
}
