/**
 * Checks on text that is handed to a child pi (a task, or a message to a running task) before anything starts.
 * A NUL can travel neither in a command-line argument nor safely through pi's input, and the JSON child gets its
 * task as one argument, which Linux caps at 128 KiB (MAX_ARG_STRLEN); the RPC child has no such limit.
 */
import type { ChildMode } from "./child-mode.ts";

/** Linux's limit on one command-line argument (32 pages of 4 KiB), including the terminating NUL. */
export const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

export function nulInTextMessage(what: "task" | "message"): string {
  return `The ${what} contains a NUL character (\\0), which cannot be passed to a subagent. Remove it and call again. Nothing was started.`;
}

export function taskTooLongForJsonChildMessage(bytes: number): string {
  return `The task is ${bytes} bytes long; with PI_SUBAGENT_CHILD_MODE=json a task is passed as one command-line argument, which is limited to ${MAX_ARGUMENT_BYTES} bytes. Shorten the task, or unset PI_SUBAGENT_CHILD_MODE to use the default RPC child (no limit). Nothing was started.`;
}

/** Why `text` cannot be sent as a task or message, or undefined when it can. */
export function childTextProblem(text: string, what: "task" | "message"): string | undefined {
  return text.includes("\0") ? nulInTextMessage(what) : undefined;
}

/** Why a prompt cannot be given to a child of `mode`, or undefined when it can. */
export function promptProblem(prompt: string, mode: ChildMode): string | undefined {
  const nul = childTextProblem(prompt, "task");
  if (nul) return nul;
  if (mode === "json") {
    const bytes = Buffer.byteLength(prompt, "utf8");
    if (bytes > MAX_ARGUMENT_BYTES) return taskTooLongForJsonChildMessage(bytes);
  }
  return undefined;
}
