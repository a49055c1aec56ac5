/**
 * Warm children, the pure part: which calls may be served by a child started ahead, the command line such a child
 * is started with, when a waiting child is the one a call would start, the files pi reads as it starts, the
 * person's setting, and the lines `/subagent-usage` shows. The pool itself is src/warm/warm-pool.ts.
 *
 * The rule that makes a warm child the same child as a cold one: it is started with the very command line and
 * environment a cold child of its task would get. Its task id (and with it its session file, its agent's prompt
 * file and its task marker) is chosen when it starts, and the call it serves takes that id. So a call is served warm
 * only when its own command line, built as for a cold child, equals the waiting child's string for string, its
 * agent's body is the one the child read, and nothing pi read as the child started has changed since.
 */
import { dirname, isAbsolute, join } from "node:path";
import type { ChildCommand } from "../run/command-line.ts";
import type { HandedSource } from "../sandbox/handed-files.ts";

/** The person's setting (`"$warmChildren"` in the user file) and its variable, which wins for one run. */
const WARM_CHILDREN_KEY = "$warmChildren";
const WARM_CHILDREN_ENV = "PI_SUBAGENT_WARM_CHILDREN";
/** How long a warm child may wait for a task before it is ended. */
const WARM_IDLE_ENV = "PI_SUBAGENT_WARM_IDLE_MS";
/** How long a warm child waits for a task (`PI_SUBAGENT_WARM_IDLE_MS`), without the warning a bad value gets. */
export function warmIdleMs(env: NodeJS.ProcessEnv): number {
  const value = wholeNumber(env[WARM_IDLE_ENV]);
  return value !== undefined && value >= 1 ? value : DEFAULT_WARM_IDLE_MS;
}

/** At most this many children wait at once (one a shape); 0 turns warm children off. */
export const DEFAULT_WARM_CHILDREN = 2;
const MAX_WARM_CHILDREN = 8;
export const DEFAULT_WARM_IDLE_MS = 180_000;

export interface WarmSettings {
  /** How many children may wait at once; 0: none is started. */
  max: number;
  idleMs: number;
  warnings: string[];
}

function wholeNumber(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : value;
  return typeof number === "number" && Number.isInteger(number) && number >= 0 ? number : undefined;
}

/**
 * The pool's size and idle time from the user file's `$warmChildren` (a project file cannot set it: a project
 * must not make the person's machine start processes ahead) and the environment, which wins.
 */
export function readWarmSettings(
  layers: {
    user: { settings?: Record<string, unknown>; filePath?: string };
    project: { settings?: Record<string, unknown>; filePath?: string };
  },
  env: NodeJS.ProcessEnv,
): WarmSettings {
  const warnings: string[] = [];
  const problem = (where: string, what: string) =>
    warnings.push(
      `pi-subagent-dispatch: ${where}: ${what} must be a whole number from 0 to ${MAX_WARM_CHILDREN}; using ${DEFAULT_WARM_CHILDREN}`,
    );
  let max = DEFAULT_WARM_CHILDREN;
  const user = layers.user.settings ?? {};
  if (Object.hasOwn(user, WARM_CHILDREN_KEY)) {
    const value = wholeNumber(user[WARM_CHILDREN_KEY]);
    if (value === undefined || value > MAX_WARM_CHILDREN)
      problem(layers.user.filePath ?? "user subagent-isolation.json", `"${WARM_CHILDREN_KEY}"`);
    else max = value;
  }
  if (Object.hasOwn(layers.project.settings ?? {}, WARM_CHILDREN_KEY))
    warnings.push(
      `pi-subagent-dispatch: ${layers.project.filePath ?? "project subagent-isolation.json"}: "${WARM_CHILDREN_KEY}" can only be set in your user-level subagent-isolation.json; ignored`,
    );
  const fromEnv = env[WARM_CHILDREN_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    const value = wholeNumber(fromEnv);
    if (value === undefined || value > MAX_WARM_CHILDREN) problem(WARM_CHILDREN_ENV, fromEnv.trim());
    else max = value;
  }
  const idle = env[WARM_IDLE_ENV];
  const idleMs = warmIdleMs(env);
  if (idle !== undefined && idle.trim() !== "" && idleMs === DEFAULT_WARM_IDLE_MS && wholeNumber(idle) !== idleMs)
    warnings.push(
      `pi-subagent-dispatch: ${WARM_IDLE_ENV}=${idle.trim()} must be a whole number of milliseconds above 0; using ${DEFAULT_WARM_IDLE_MS}`,
    );
  return { max, idleMs, warnings };
}

/**
 * Whether a call's child could have been started ahead: a new session (not a resume, whose history is on disk,
 * nor a fork, whose session holds the main conversation), in the session's own folder (a new worktree is made for
 * its task), driven over RPC (a JSON child gets its task on its command line).
 */
export function warmableCall(call: {
  resumed: boolean;
  forked: boolean;
  isolation?: string;
  mode: "rpc" | "json";
}): boolean {
  return !call.resumed && !call.forked && call.isolation !== "worktree" && call.mode === "rpc";
}

function swap(value: string, from: string, to: string): string {
  return value.split(from).join(to);
}

function swapSource(source: HandedSource, from: string, to: string): HandedSource {
  return typeof source === "string" ? swap(source, from, to) : { loginCopyOf: swap(source.loginCopyOf, from, to) };
}

/**
 * The command line a child of task `to` gets where a child of task `from` got `command`: a task id (a v7 uuid) is
 * in the paths of the session and prompt files, the sandbox's task folder and the task marker, never by chance.
 * The prompt is left out: a warm child gets its task over RPC once it is claimed.
 */
export function commandForTask(command: ChildCommand, from: string, to: string): ChildCommand {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(command.env)) if (value !== undefined) env[name] = swap(value, from, to);
  return {
    command: swap(command.command, from, to),
    args: command.args.map((arg) => swap(arg, from, to)),
    env,
    mode: command.mode,
    prompt: "",
    ...(command.handIn ? { handIn: command.handIn.map((source) => swapSource(source, from, to)) } : {}),
    ...(command.mountPoints ? { mountPoints: command.mountPoints.map((path) => swap(path, from, to)) } : {}),
    ...(command.sandboxArgs ? { sandboxArgs: command.sandboxArgs.map((arg) => swap(arg, from, to)) } : {}),
  };
}

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined, same: (x: T, y: T) => boolean): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((item, index) => same(item, right[index] as T));
}

/** Whether two children are started the same way: program, arguments, environment, sandbox (the prompt aside). */
export function sameLaunch(a: ChildCommand, b: ChildCommand): boolean {
  if (a.command !== b.command || a.mode !== b.mode) return false;
  if (!sameList(a.args, b.args, (x, y) => x === y)) return false;
  if (!sameList(a.sandboxArgs, b.sandboxArgs, (x, y) => x === y)) return false;
  if (!sameList(a.mountPoints, b.mountPoints, (x, y) => x === y)) return false;
  const sameSource = (x: HandedSource, y: HandedSource) =>
    typeof x === "string" || typeof y === "string" ? x === y : x.loginCopyOf === y.loginCopyOf;
  if (!sameList(a.handIn, b.handIn, sameSource)) return false;
  const names = Object.keys(a.env).filter((name) => a.env[name] !== undefined);
  const otherNames = Object.keys(b.env).filter((name) => b.env[name] !== undefined);
  return names.length === otherNames.length && names.every((name) => a.env[name] === b.env[name]);
}

/** What pi reads as it starts, besides the command line: files whose change a waiting child would not see. */
export interface StartupInputs {
  files: string[];
  /** Folders whose entries, and their entries' entries, are looked at (extensions, skills). */
  folders: string[];
}

const AGENT_DIR_FILES = [
  "settings.json",
  "models.json",
  "mcp.json",
  "AGENTS.md",
  "CLAUDE.md",
  "SYSTEM.md",
  "APPEND_SYSTEM.md",
];
const PROJECT_FILES = [".pi/settings.json", ".pi/mcp.json", ".pi/SYSTEM.md", ".pi/APPEND_SYSTEM.md"];
const CONTEXT_FILES = ["AGENTS.md", "CLAUDE.md"];
const FLAGS_WITH_PATHS = new Set(["-e", "--extension", "--skill"]);

/**
 * The files and folders a child started with `args` in `cwd` reads as it starts: pi's settings, models, MCP servers,
 * system prompt files and context files (the working folder's and every folder above it), its extensions and skills
 * folders, and the `-e` and `--skill` paths of the command line; a sandboxed child's handed-in login too (a refreshed
 * login is not in a copy handed in earlier).
 */
export function startupInputs(input: {
  cwd: string;
  agentDir: string;
  home: string;
  args: readonly string[];
  sandboxed: boolean;
}): StartupInputs {
  const files = AGENT_DIR_FILES.map((name) => join(input.agentDir, name));
  if (input.sandboxed) files.push(join(input.agentDir, "auth.json"));
  files.push(...PROJECT_FILES.map((name) => join(input.cwd, name)));
  const folders = [
    join(input.agentDir, "extensions"),
    join(input.agentDir, "skills"),
    join(input.cwd, ".pi", "extensions"),
    join(input.cwd, ".pi", "skills"),
    join(input.home, ".agents", "skills"),
  ];
  for (let dir = input.cwd; ; dir = dirname(dir)) {
    files.push(...CONTEXT_FILES.map((name) => join(dir, name)));
    folders.push(join(dir, ".agents", "skills"));
    if (dirname(dir) === dir) break;
  }
  input.args.forEach((arg, index) => {
    const value = input.args[index + 1];
    if (FLAGS_WITH_PATHS.has(arg) && value !== undefined && isAbsolute(value)) folders.push(value);
  });
  return { files: [...new Set(files)], folders: [...new Set(folders)] };
}

/** A waiting child, as `/subagent-usage` shows it. */
export interface WarmChildView {
  agent: string;
  cwd: string;
  pid: number | undefined;
  idleMs: number;
  /** Resident memory of its whole process tree (a sandbox's bubblewrap and pi), when it could be read. */
  rssKiB?: number;
}

function ago(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** `/subagent-usage`'s lines on the children waiting for a task (none when the pool is empty and off). */
export function warmChildrenLines(children: readonly WarmChildView[], max: number): string[] {
  if (max === 0 && children.length === 0) return ["Warm children: off ($warmChildren is 0)."];
  if (children.length === 0) return [`Warm children: none waiting (at most ${max}).`];
  return [
    `Warm children: ${children.length} waiting (at most ${max}), each started for the next task of its shape.`,
    ...children.map(
      (child) =>
        `  ${child.agent} · ${child.cwd} · pid ${child.pid ?? "?"} · idle ${ago(child.idleMs)}` +
        (child.rssKiB !== undefined ? ` · ${Math.round(child.rssKiB / 1024)} MiB` : ""),
    ),
  ];
}
