// @ts-check
/**
 * The names and one-line descriptions of the extension's commands, in a module with no dependencies: the light
 * entry registers them at start (src/manifest.js) and the command modules use the same strings.
 */
export const CANCEL_COMMAND = "subagent-cancel";
export const CANCEL_ALL_COMMAND = "subagent-cancel-all";
export const RESULT_COMMAND = "subagent-result";
export const WATCH_COMMAND = "subagent-watch";

export const CANCEL_DESCRIPTION = "Cancel a running subagent task (id or 4+ character prefix; no id: pick one)";
export const CANCEL_ALL_DESCRIPTION = "Cancel every running and queued subagent task of this session";
export const RESULT_DESCRIPTION = "Show the full result of a finished subagent task (no id: pick a recent one)";
export const WATCH_DESCRIPTION = "Watch a running subagent task live (no id: pick one)";

export const CONFIG_COMMAND = "subagent-config";
export const CONFIG_DESCRIPTION = "Configure subagents: description, tools, skills, body, model & thinking, and the $models list";

export const MESSAGE_COMMAND = "subagent-message";
export const MESSAGE_DESCRIPTION = "Send a message to a running subagent task: /subagent-message <id> <text> (no id: pick one)";

export const USAGE_COMMAND = "subagent-usage";
export const USAGE_DESCRIPTION = "Show what this session's subagents used: tasks by status, turns, tokens and cost, by agent and by model";
export const WORKTREES_COMMAND = "subagent-worktrees";
export const WORKTREES_DESCRIPTION = "List the kept git worktrees of subagent tasks (TUI: pick one to remove); remove <id>: remove one and its branch";
