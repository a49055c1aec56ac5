/**
 * Where this pi stands in a tree of subagents: the nesting variables every child inherits, and the task id (a child's session id) that names each one.
 */

/**
 * Environment variables that carry the subagent nesting across processes (read on pi's start-up path, by the entry).
 */
export const DEPTH_ENV = "PI_SUBAGENT_DEPTH";
/**
 * The pi that started this one, as `<pid>:<start time>`: set in every unsandboxed child, which watches that pi (a
 * sandboxed child's pid namespace hides it; bubblewrap ends that child with its parent instead).
 */
export const PARENT_ENV = "PI_SUBAGENT_PARENT";
/**
 * Set (to its level) in a sandboxed child, by bubblewrap: such a child cannot start subagents of its own (no
 * sandbox can be made inside one, and its task folder is the only writable one), so its tool refuses every call.
 */
export const SANDBOX_ENV = "PI_SUBAGENT_SANDBOX";
export const AGENT_NAME_ENV = "PI_CURRENT_AGENT_NAME";
/**
 * The MCP tool patterns a child may reach (pi 1.x), comma-separated. Set only for such a child, which is started with
 * `--no-mcp` and runs pi's MCP extension itself for the servers these reach (src/pi/child-mcp.ts).
 */
export const CHILD_MCP_ENV = "PI_SUBAGENT_MCP_TOOLS";

/**
 * The MCP patterns this process was granted as a subagent, or undefined. Only a subagent started with `--no-mcp`
 * has them: the variable in a main pi (set by hand) or beside pi's own MCP would start a second MCP beside it.
 */
export function childMcpPatterns(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
): string | undefined {
  const patterns = env[CHILD_MCP_ENV];
  return patterns && readSubagentDepth(env) >= 1 && argv.includes("--no-mcp") ? patterns : undefined;
}

/** The nesting depth of this process: 0 for the main agent; a missing or non-numeric value counts as 0. */
export function readSubagentDepth(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[DEPTH_ENV];
  if (raw === undefined || raw.trim() === "") return 0;
  const depth = Number(raw);
  return Number.isFinite(depth) && depth > 0 ? Math.floor(depth) : 0;
}

/** A subagent (depth >= 1) may neither dispatch nor cancel subagents, nor see the roster. */
export function isInsideSubagent(env: NodeJS.ProcessEnv = process.env): boolean {
  return readSubagentDepth(env) >= 1;
}

/**
 * Bounded nesting. `PI_SUBAGENT_MAX_DEPTH` is how deep the tree of subagents may go: 1 (the default) lets only
 * the main agent dispatch; 2 lets its children dispatch too (their children cannot), and so on. A parent writes
 * the limit it resolved (environment, then config `$maxDepth`) into each child's environment, so the whole tree
 * runs under the root's limit and a child never reads the config to know it.
 */
export const MAX_DEPTH_ENV = "PI_SUBAGENT_MAX_DEPTH";
export const DEFAULT_MAX_DEPTH = 1;
/** The deepest tree allowed, whatever is asked: each level is a pi process and a model bill. */
export const MAX_DEPTH_CAP = 5;

/** A max-depth value as written (env or config), or undefined when it is not a whole number from 1 to the cap. */
export function parseMaxDepth(raw: unknown): number | undefined {
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : typeof raw === "number" ? raw : Number.NaN;
  return Number.isInteger(value) && value >= 1 && value <= MAX_DEPTH_CAP ? value : undefined;
}

/** The limit set in the environment, if it is valid (invalid values are reported by the dispatch path). */
export function readMaxDepthEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  return parseMaxDepth(env[MAX_DEPTH_ENV]);
}

/** Whether this process is below the depth limit: the main agent always is; a child when its parent passed a deeper limit. */
export function isBelowDepthLimit(env: NodeJS.ProcessEnv = process.env): boolean {
  return readSubagentDepth(env) < (readMaxDepthEnv(env) ?? DEFAULT_MAX_DEPTH);
}

/**
 * Whether this process may dispatch subagents (and so gets the roster). The environment alone decides: a process
 * below the depth limit may, unless it runs in a sandbox.
 */
export function mayDispatchSubagents(env: NodeJS.ProcessEnv = process.env): boolean {
  return subagentToolSurface(env) === "working";
}

/**
 * What of the `subagent` tool this process's model sees, from the environment alone. At the depth limit nothing:
 * no tool, snippet or guidelines (the spec: a subagent has no `subagent` tool surface), however pi got the package.
 * In a sandboxed subagent below the limit a tool that refuses every call, saying why (it may nest, but no sandbox
 * can be made inside one). Elsewhere the working tool.
 */
export type SubagentToolSurface = "none" | "refusing" | "working";

export function subagentToolSurface(env: NodeJS.ProcessEnv = process.env): SubagentToolSurface {
  if (!isBelowDepthLimit(env)) return "none";
  return readSandboxEnv(env) === undefined ? "working" : "refusing";
}

/** The sandbox level this process runs in (a sandboxed child), or undefined outside a sandbox. */
export function readSandboxEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const level = env[SANDBOX_ENV]?.trim();
  return level ? level : undefined;
}

/** A task id is the child's session id: a lowercase UUID v7 (time-ordered, so ids sort by dispatch time). */
const TASK_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** What a typed prefix of a task id may contain: hex digits and dashes, no longer than a whole id. */
const TASK_ID_PREFIX_PATTERN = /^[0-9a-f-]{1,36}$/;

/** How much of an id that is not one is repeated back in a message. */
export const ID_ECHO_MAX = 40;

export function isTaskId(value: string): boolean {
  return TASK_ID_PATTERN.test(value);
}

/** The creation time a task id (UUID v7) carries in its first 48 bits, in ms since the epoch. */
export function taskIdTime(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** Whether `value` (already trimmed and lowercased) could be the start of a task id. */
export function isTaskIdPrefix(value: string): boolean {
  return TASK_ID_PREFIX_PATTERN.test(value);
}

/**
 * An id (or whatever was passed as one) as a message repeats it: one line, no control characters, at most
 * ID_ECHO_MAX characters. A 10 KB "id" is cut, not echoed back whole.
 */
export function idForMessage(value: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return flat.length <= ID_ECHO_MAX ? flat : `${flat.slice(0, ID_ECHO_MAX - 1)}…`;
}
