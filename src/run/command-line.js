// @ts-check
/**
 * The child pi's command line and environment, built purely from resolved inputs so it can be tested
 * directly. The child runs the same node and pi entry as the parent, on a session file we created (so the task
 * id is the session id), in RPC mode (the task is sent on stdin by the runner) or, as a fallback, in JSON print
 * mode (the runner adds the task as the last argument). The prompt is kept apart from the arguments so a message
 * sent to a queued task can still be appended to it before it starts.
 */
import { resolve } from "node:path";
import { AGENT_NAME_ENV, DEFAULT_MAX_DEPTH, DEPTH_ENV, MAX_DEPTH_ENV } from "../shared/depth.js";
import { PARENT_ENV } from "./parent-watchdog.js";
import { formatIdentity } from "./proc-identity.js";
import { OUTER_TASKS_ENV, outerTasksForChild, TASK_MARKER_ENV } from "./task-marker.js";
/** @import { ProcessIdentity } from "./proc-identity.js" */
/** @import { HostThinkingLevel } from "../shared/thinking.js" */
/** @import { ChildMode } from "./child-mode.js" */

/**
 * @typedef {object} PiExecutable
 * @property {string} command The program to run: node (`process.execPath`) or a `pi` found on PATH.
 * @property {string[]} prefixArgs Arguments before pi's own: the pi entry script when `command` is node.
 */

/**
 * This package, as a child's command line needs it: how node preloads the child's watch on its parent, and the
 * paths by which a parent's `-e` may name the package (so a child that cannot use it is spared loading it).
 * @typedef {object} OwnPackage
 * @property {string} preloadUrl The `--import` value: src/run/child-preload.js as a file URL.
 * @property {readonly string[]} paths Absolute paths that name this package: its root and its entry, as given and
 *   with links resolved.
 */

/**
 * @typedef {object} ChildCommandInput
 * @property {PiExecutable} pi
 * @property {string} sessionFile
 * @property {string} [model] `provider/id`, or a bare id; absent lets the child use pi's default.
 * @property {HostThinkingLevel} [thinking]
 * @property {string[]} [tools] Tool allowlist; absent gives the child pi's default tools.
 * @property {string[]} [skills] Resolved skill paths; absent when the agent has no `skills` key (global skills stay
 *   on).
 * @property {string} [systemPromptFile] A file holding the agent's body, appended to pi's system prompt.
 * @property {string[]} [extraExtensions] Extensions the parent was started with via `-e`, so the child sees the
 *   same ones.
 * @property {string} task
 * @property {ChildMode} [mode] How the child is driven (default `rpc`).
 * @property {string} agentName
 * @property {number} parentDepth The parent's depth (0 for the main agent).
 * @property {NodeJS.ProcessEnv} baseEnv
 * @property {string} [taskId] The task's id, set as the marker every process of the task inherits
 *   (`PI_SUBAGENT_TASK_ID`).
 * @property {ProcessIdentity} [parent] This pi's identity, which the child's watchdog watches (`PI_SUBAGENT_PARENT`).
 * @property {number} [maxDepth] The tree's nesting limit (`PI_SUBAGENT_MAX_DEPTH`, default 1), passed down so every
 *   level obeys the root's.
 * @property {boolean} [forked] The child starts on a copy of the main agent's conversation (`context: "fork"`): its
 *   prompt says so.
 * @property {OwnPackage} [ownPackage] When known, a child run through node gets the preload, and one at the depth
 *   limit drops this package's `-e`.
 */

/**
 * @typedef {object} ChildCommand
 * @property {string} command
 * @property {string[]} args pi's arguments, without the prompt.
 * @property {NodeJS.ProcessEnv} env
 * @property {ChildMode} mode
 * @property {string} prompt The first user message: `Task: …`; sent as an RPC `prompt`, or appended to `args` for a
 *   JSON child.
 */

/**
 * @param {string} task
 * @returns {string}
 */
export function taskPrompt(task) {
  return `Task: ${task}`;
}

/** Said before the task of a forked child, whose history is someone else's conversation. */
export const FORKED_PROMPT_PREFIX =
  "The conversation above is the main agent's, copied for you as context. You are a subagent with your own instructions and tools: do the task below and answer with its result.";

/**
 * The first prompt of a child: the task, after the fork note when the child starts on a forked history.
 * @param {string} task
 * @param {boolean} [forked=false]
 * @returns {string}
 */
export function childPrompt(task, forked = false) {
  return forked ? `${FORKED_PROMPT_PREFIX}\n\n${taskPrompt(task)}` : taskPrompt(task);
}

/** The subagent tool's name in a tool allowlist (a nested child below the limit keeps its tool). */
const SUBAGENT_TOOL = "subagent";

/**
 * The child's tool allowlist: the agent's, plus the subagent tool when the child may dispatch itself (an
 * allowlist filters extension tools too, so without it the nested tool would be missing).
 * @param {string[] | undefined} tools
 * @param {number} childDepth
 * @param {number} maxDepth
 * @returns {string[] | undefined}
 */
export function childTools(tools, childDepth, maxDepth) {
  if (!tools || childDepth >= maxDepth || tools.includes(SUBAGENT_TOOL)) return tools;
  return [...tools, SUBAGENT_TOOL];
}

/**
 * The parent's `-e` extensions the child gets: all of them, but this package for a child at the depth limit
 * whose watch on its parent node preloads. Such a child may not dispatch, so the package would only register a
 * refusing tool, at the price of pi's TypeScript loader (the bulk of any extension's start-up cost); without it
 * the child's model simply has no `subagent` tool. (When the package is installed rather than given with
 * `-e`, pi loads it in the child anyway, and the tool refuses with the depth-gate message.)
 * @param {readonly string[]} extensions
 * @param {OwnPackage | undefined} ownPackage
 * @param {boolean} preloaded
 * @param {boolean} atDepthLimit
 * @returns {string[]}
 */
export function childExtensions(extensions, ownPackage, preloaded, atDepthLimit) {
  if (!ownPackage || !preloaded || !atDepthLimit) return [...extensions];
  return extensions.filter((extension) => !ownPackage.paths.includes(resolve(extension)));
}

/**
 * Every child starts with `--offline` ("disable startup network operations", pi 0.73.1 and 1.x): its parent pi
 * already did that work, and a child doing it again costs each delegation. pi 1.x's RPC mode refreshes every
 * configured provider's model catalog over the network when it starts, and a child still waiting on it exits late:
 * with the network blocked, 3 of 8 parallel children exited about 5 s after their answer, and a result waits for
 * its child's exit. In both modes it also skips re-fetching a parent's `-e git:` extension and installing missing
 * packages. The child reads the catalogs pi keeps in the agent dir, as it always did in JSON mode.
 */
export const CHILD_FLAGS = Object.freeze(["--offline"]);

/**
 * @param {ChildCommandInput} input
 * @returns {ChildCommand}
 */
export function buildChildCommand(input) {
  const mode = input.mode ?? "rpc";
  const modeArgs = [...(mode === "rpc" ? ["--mode", "rpc"] : ["--mode", "json", "-p"]), ...CHILD_FLAGS];
  // Node options go before pi's entry script; a `pi` executable takes none.
  const preload = input.ownPackage && input.pi.prefixArgs.length > 0 ? ["--import", input.ownPackage.preloadUrl] : [];
  const args = [...preload, ...input.pi.prefixArgs, ...modeArgs, "--session", input.sessionFile];
  const maxDepth = input.maxDepth ?? DEFAULT_MAX_DEPTH;
  const atDepthLimit = input.parentDepth + 1 >= maxDepth;
  for (const extension of childExtensions(input.extraExtensions ?? [], input.ownPackage, preload.length > 0, atDepthLimit)) args.push("-e", extension);
  if (input.model) args.push("--model", input.model);
  if (input.thinking) args.push("--thinking", input.thinking);
  const tools = childTools(input.tools, input.parentDepth + 1, maxDepth);
  if (tools) args.push("--tools", tools.join(","));
  if (input.skills) {
    args.push("--no-skills");
    for (const skill of input.skills) args.push("--skill", skill);
  }
  if (input.systemPromptFile) args.push("--append-system-prompt", input.systemPromptFile);
  /** @type {NodeJS.ProcessEnv} */
  const env = {
    ...input.baseEnv,
    [DEPTH_ENV]: String(input.parentDepth + 1),
    [AGENT_NAME_ENV]: input.agentName,
    [MAX_DEPTH_ENV]: String(maxDepth),
  };
  // A nested child carries the ids of the tasks it runs inside, so ending any of them finds it.
  const outer = outerTasksForChild(input.baseEnv);
  if (outer) env[OUTER_TASKS_ENV] = outer;
  else delete env[OUTER_TASKS_ENV];
  if (input.taskId) env[TASK_MARKER_ENV] = input.taskId;
  if (input.parent) env[PARENT_ENV] = formatIdentity(input.parent);
  return { command: input.pi.command, args, env, mode, prompt: childPrompt(input.task, input.forked) };
}

/**
 * The `-e`/`--extension` values the parent pi was started with.
 * @param {readonly string[]} argv
 * @returns {string[]}
 */
export function extensionArgsOf(argv) {
  /** @type {string[]} */
  const found = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if ((arg === "-e" || arg === "--extension") && argv[i + 1] !== undefined) {
      found.push(/** @type {string} */ (argv[i + 1]));
      i++;
    } else if (arg?.startsWith("--extension=")) {
      found.push(arg.slice("--extension=".length));
    }
  }
  return found;
}

/** Sources pi loads from elsewhere than the file system (pi's own `isLocalPath` rule). */
const REMOTE_SOURCE_PREFIXES = ["npm:", "git:", "github:", "http:", "https:", "ssh:"];

/**
 * A parent's `-e` value as the child must see it. pi resolves a local path against the directory it was started
 * in, which need not be the child's working directory, so the child gets it absolute; remote sources stay.
 * @param {string} value
 * @param {string} parentCwd
 * @returns {string}
 */
export function extensionArgForChild(value, parentCwd) {
  const trimmed = value.trim();
  return REMOTE_SOURCE_PREFIXES.some((prefix) => trimmed.startsWith(prefix)) ? value : resolve(parentCwd, value);
}
