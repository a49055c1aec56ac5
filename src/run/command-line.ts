/**
 * The child's command line (pure): the skills it gets, and the arguments and environment.
 */
import { isMcpToolName } from "../shared/tool-patterns.ts";
import type { PiExecutable } from "../shared/run-settings.ts";
import { isAbsolute, relative, resolve } from "node:path";
import {
  AGENT_NAME_ENV,
  CHILD_MCP_ENV,
  DEFAULT_MAX_DEPTH,
  DEPTH_ENV,
  MAX_DEPTH_ENV,
  PARENT_ENV,
} from "../shared/nesting.ts";
import { formatIdentity, type ProcessIdentity } from "../shared/proc-identity.ts";
import { OUTER_TASKS_ENV, outerTasksForChild, TASK_MARKER_ENV } from "./parent-watchdog.ts";
import type { HostThinkingLevel } from "../shared/thinking.ts";
import type { ChildMode } from "./stop-sequence.ts";
import type { HandedSource } from "../sandbox/handed-files.ts";

export interface SkillPathResolution {
  paths: string[];
  warnings: string[];
}

/**
 * Resolves an agent's `skills` entries: `~` is the home directory, absolute paths stay, relative paths are
 * taken from the working directory. A relative path that climbs out of the working directory is dropped
 * with a warning: an agent file should not reach into arbitrary places through `../`.
 */
export function resolveSkillPaths(entries: readonly string[], cwd: string, home: string): SkillPathResolution {
  const paths: string[] = [];
  const warnings: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    if (entry === "~" || entry.startsWith("~/")) {
      paths.push(resolve(home, entry.slice(2)));
      continue;
    }
    if (isAbsolute(entry)) {
      paths.push(entry);
      continue;
    }
    const full = resolve(cwd, entry);
    const rel = relative(cwd, full);
    if (rel === ".." || rel.startsWith("../") || isAbsolute(rel)) {
      warnings.push(`skill path "${entry}" leaves the working directory and was not loaded`);
      continue;
    }
    paths.push(full);
  }
  return { paths: [...new Set(paths)], warnings };
}
/*
 * The child pi's command line and environment, built purely from resolved inputs so it can be tested
 * directly. The child runs the same node and pi entry as the parent, on a session file we created (so the task
 * id is the session id), in RPC mode (the task is sent on stdin by the runner) or, as a fallback, in JSON print
 * mode (the runner adds the task as the last argument). The prompt is kept apart from the arguments so a message
 * sent to a queued task can still be appended to it before it starts.
 */

export interface ChildCommandInput {
  pi: PiExecutable;
  sessionFile: string;
  /** `provider/id`, or a bare id; absent lets the child use pi's default. */
  model?: string;
  thinking?: HostThinkingLevel;
  /** Tool allowlist; absent gives the child pi's default tools. */
  tools?: string[];
  /**
   * Resolved skill paths; absent when the agent has no `skills` key (global skills stay
   * on).
   */
  skills?: string[];
  /** A file holding the agent's body, appended to pi's system prompt. */
  systemPromptFile?: string;
  /**
   * Extensions the parent was started with via `-e`, so the child sees the
   * same ones.
   */
  extraExtensions?: string[];
  task: string;
  /** How the child is driven (default `rpc`). */
  mode?: ChildMode;
  agentName: string;
  /** The parent's depth (0 for the main agent). */
  parentDepth: number;
  baseEnv: NodeJS.ProcessEnv;
  /**
   * The task's id, set as the marker every process of the task inherits
   * (`PI_SUBAGENT_TASK_ID`).
   */
  taskId?: string;
  /** This pi's identity, which the child's watchdog watches (`PI_SUBAGENT_PARENT`). */
  parent?: ProcessIdentity;
  /**
   * The tree's nesting limit (`PI_SUBAGENT_MAX_DEPTH`, default 1), passed down so every
   * level obeys the root's.
   */
  maxDepth?: number;
  /**
   * The child starts on a copy of the main agent's conversation (`context: "fork"`): its
   * prompt says so.
   */
  forked?: boolean;
  /**
   * pi 1.x (a pi with MCP): the child starts with `--no-mcp` unless its tools list has an `mcp__` pattern (no MCP
   * server starts for a child that may reach none of them), and with `exclude` as its `--exclude-tools`.
   */
  mcp?: { exclude: readonly string[] };
  /** pi 1.x: the parent's project-trust decision, so the child sees the project as the parent does. */
  trustFlag?: "--approve" | "--no-approve";
  /**
   * The child runs inside this sandbox: `bwrap <args> -- <node> <pi entry> …` (src/sandbox/bwrap-args.ts),
   * handed the files `handIn` names (opened at the spawn as descriptors 3, 4, …); bubblewrap makes `mountPoints`
   * on the host, removed after the child.
   */
  sandbox?: {
    bwrap: string;
    args: readonly string[];
    handIn?: readonly HandedSource[];
    mountPoints?: readonly string[];
  };
}

export interface ChildCommand {
  command: string;
  /** pi's arguments, without the prompt. */
  args: string[];
  env: NodeJS.ProcessEnv;
  mode: ChildMode;
  /**
   * The first user message: `Task: …`; sent as an RPC `prompt`, or appended to `args` for a
   * JSON child.
   */
  prompt: string;
  /** Host files opened read-only at the spawn and given as descriptors 3, 4, … in this order (a sandbox's). */
  handIn?: readonly HandedSource[];
  /** Host paths bubblewrap makes as mount points, removed once the child's whole tree has ended (a sandbox's). */
  mountPoints?: readonly string[];
  /** A sandboxed child's bubblewrap arguments before `--`: a `verify` check runs in the same sandbox (src/run/verify.ts). */
  sandboxArgs?: readonly string[];
}

/**
 * What a sandboxed child's environment loses: the sockets through which its commands could act as the person
 * (their ssh and gpg agents, the session bus, a docker daemon). The sockets themselves are hidden too
 * (src/sandbox/bwrap-args.ts); an unsandboxed child keeps them, as it keeps everything its user can reach.
 */
const SANDBOX_DROPPED_ENV: readonly string[] = Object.freeze([
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "DBUS_SESSION_BUS_ADDRESS",
  "DOCKER_HOST",
]);

export function taskPrompt(task: string): string {
  return `Task: ${task}`;
}

/** Said before the task of a forked child, whose history is someone else's conversation. */
const FORKED_PROMPT_PREFIX =
  "The conversation above is the main agent's, copied for you as context. You are a subagent with your own instructions and tools: do the task below and answer with its result.";

/** The first prompt of a child: the task, after the fork note when the child starts on a forked history. */
export function childPrompt(task: string, forked: boolean = false): string {
  return forked ? `${FORKED_PROMPT_PREFIX}\n\n${taskPrompt(task)}` : taskPrompt(task);
}

/** The subagent tool's name in a tool allowlist (a nested child below the limit keeps its tool). */
const SUBAGENT_TOOL = "subagent";

/**
 * The child's tool allowlist: the agent's, plus the subagent tool when the child may dispatch itself (an
 * allowlist filters extension tools too, so without it the nested tool would be missing).
 */
function childTools(tools: string[] | undefined, childDepth: number, maxDepth: number): string[] | undefined {
  if (!tools || childDepth >= maxDepth || tools.includes(SUBAGENT_TOOL)) return tools;
  return [...tools, SUBAGENT_TOOL];
}

/**
 * Every child starts with `--offline` ("disable startup network operations", pi 0.73.1 and 1.x): its parent pi
 * already did that work, and a child doing it again costs each delegation. pi 1.x's RPC mode refreshes every
 * configured provider's model catalog over the network when it starts, and a child still waiting on it exits late:
 * with the network blocked, 3 of 8 parallel children exited about 5 s after their answer, and a result waits for
 * its child's exit. In both modes it also skips re-fetching a parent's `-e git:` extension and installing missing
 * packages. The child reads the catalogs pi keeps in the agent dir, as it always did in JSON mode.
 */
const CHILD_FLAGS = Object.freeze(["--offline"]);

export function buildChildCommand(input: ChildCommandInput): ChildCommand {
  const mode = input.mode ?? "rpc";
  const modeArgs = [...(mode === "rpc" ? ["--mode", "rpc"] : ["--mode", "json", "-p"]), ...CHILD_FLAGS];
  const args = [...input.pi.prefixArgs, ...modeArgs, "--session", input.sessionFile];
  const maxDepth = input.maxDepth ?? DEFAULT_MAX_DEPTH;
  // Every `-e` of the parent, this package's too: a child at the depth limit needs its entry for the watch on its
  // parent (src/run/parent-watchdog.ts), though its model gets no `subagent` tool there (extension.ts).
  for (const extension of input.extraExtensions ?? []) args.push("-e", extension);
  if (input.model) args.push("--model", input.model);
  if (input.thinking) args.push("--thinking", input.thinking);
  const tools = childTools(input.tools, input.parentDepth + 1, maxDepth);
  // An empty list (every tool the agent names was cut) is no tools at all, not pi's defaults.
  if (tools) args.push(...(tools.length > 0 ? ["--tools", tools.join(",")] : ["--no-tools"]));
  // pi's built-in MCP would start every configured server; the child runs it for its granted ones only.
  const mcpPatterns = input.mcp ? (tools ?? []).filter(isMcpToolName) : [];
  if (input.mcp) {
    args.push("--no-mcp");
    if (input.mcp.exclude.length > 0) args.push("--exclude-tools", input.mcp.exclude.join(","));
  }
  if (input.trustFlag) args.push(input.trustFlag);
  if (input.skills) {
    args.push("--no-skills");
    for (const skill of input.skills) args.push("--skill", skill);
  }
  if (input.systemPromptFile) args.push("--append-system-prompt", input.systemPromptFile);
  const env: NodeJS.ProcessEnv = {
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
  if (mcpPatterns.length > 0) env[CHILD_MCP_ENV] = mcpPatterns.join(",");
  else delete env[CHILD_MCP_ENV];
  const prompt = childPrompt(input.task, input.forked);
  // bwrap runs pi as its own child, with the same environment (the task marker, the depth variables).
  if (input.sandbox) {
    for (const name of SANDBOX_DROPPED_ENV) delete env[name];
    // Its pid namespace hides the parent's pid, so a watch would take the parent for dead at once; bubblewrap's
    // --die-with-parent ends the whole namespace with the parent instead (src/sandbox/bwrap-args.ts).
    delete env[PARENT_ENV];
    const handIn = input.sandbox.handIn?.length ? { handIn: input.sandbox.handIn } : {};
    const mountPoints = input.sandbox.mountPoints?.length ? { mountPoints: input.sandbox.mountPoints } : {};
    return {
      command: input.sandbox.bwrap,
      args: [...input.sandbox.args, "--", input.pi.command, ...args],
      env,
      mode,
      prompt,
      sandboxArgs: input.sandbox.args,
      ...handIn,
      ...mountPoints,
    };
  }
  return { command: input.pi.command, args, env, mode, prompt };
}

/** Sources pi loads from elsewhere than the file system (pi's own `isLocalPath` rule). */
const REMOTE_SOURCE_PREFIXES = ["npm:", "git:", "github:", "http:", "https:", "ssh:"];

/**
 * A parent's `-e` value as the child must see it. pi resolves a local path against the directory it was started
 * in, which need not be the child's working directory, so the child gets it absolute; remote sources stay.
 */
export function extensionArgForChild(value: string, parentCwd: string): string {
  const trimmed = value.trim();
  return REMOTE_SOURCE_PREFIXES.some((prefix) => trimmed.startsWith(prefix)) ? value : resolve(parentCwd, value);
}
