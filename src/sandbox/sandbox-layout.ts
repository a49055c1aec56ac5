/**
 * The sandbox on this machine: bubblewrap found and probed, and what exists on disk that the mounts are made from.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  lstatSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, isAbsolute, resolve, sep } from "node:path";
import type { SandboxUnavailable, SandboxLevel } from "./levels.ts";
import { perProcess } from "../shared/this-process.ts";
import { isEmptyMountPoint } from "./mount-points.ts";
import {
  isInside,
  PROTECTED_WORKSPACE_ENTRIES,
  hiddenPaths,
  hiddenSystemPaths,
  type HiddenSecret,
  type ProtectedPath,
  type SandboxLayout,
} from "./bwrap-args.ts";
import { gitEnvironment, SAFE_CONFIG } from "../worktree/git.ts";

/*
 * Finding a bubblewrap that works: `bwrap` in the system's own folders only (`/usr/bin`, `/bin`, …), never on the
 * PATH (`npm run` and `npx` put `node_modules/.bin` first, and a project or a child could plant a `bwrap` that
 * runs pi with no sandbox at all), and only where neither the file nor any folder above it can be written by
 * anyone but root. Then one real sandbox is started with it, which must prove it isolates: a write to a folder
 * bound read-only fails inside, and nothing reaches the host (this fails where user namespaces are turned off). The
 * probe runs once per process for each bwrap path; a call that asks for a sandbox starts it ahead (probeAhead), so
 * that it runs beside the reading of agents and config instead of after it.
 */
export type BwrapLookup = { ok: true; bwrap: string } | { ok: false; reason: SandboxUnavailable };

/** Where bubblewrap is looked for, in this order (NixOS's system profile last). */
export const SYSTEM_BWRAP_DIRS: readonly string[] = Object.freeze([
  "/usr/bin",
  "/bin",
  "/usr/sbin",
  "/sbin",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/run/current-system/sw/bin",
]);

/**
 * Tests only: other folders to look in instead (`:`-separated), each still held to the same ownership rule. It can
 * only come from the environment pi was started with, which a child cannot change.
 */
export const BWRAP_DIRS_ENV = "PI_SUBAGENT_BWRAP_DIRS";

/**
 * Owned by root and writable by nobody else: a file, and every folder from it up to `/` (a sticky folder, such as
 * `/tmp`, lets others add entries but not replace root's).
 */
function onlyRootCanChange(path: string): boolean {
  let current = path;
  for (;;) {
    const stats = statSync(current);
    const sticky = stats.isDirectory() && (stats.mode & 0o1000) !== 0;
    if (stats.uid !== 0 || ((stats.mode & 0o022) !== 0 && !sticky)) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** The first bwrap in `dirs` that is an executable file only root can change (links resolved). */
export function bwrapInSystemDirs(dirs: readonly string[] = SYSTEM_BWRAP_DIRS): string | undefined {
  for (const dir of dirs) {
    if (!dir.startsWith("/")) continue;
    try {
      const path = realpathSync(join(dir, "bwrap"));
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile() && onlyRootCanChange(path)) return path;
    } catch {
      // not there, or not fit
    }
  }
  return undefined;
}

/** The folders to look in: the system's, or `PI_SUBAGENT_BWRAP_DIRS` when set. */
export function bwrapDirs(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  const fromEnv = env[BWRAP_DIRS_ENV];
  return fromEnv === undefined ? SYSTEM_BWRAP_DIRS : fromEnv.split(":").filter((dir) => dir !== "");
}

const ISOLATED = "pi-subagent-sandbox-isolated";

/** A host folder the probe's sandbox binds read-only, and the probe's command line for it. */
function probeSetUp(): { dir: string; planted: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "pi-subagent-probe-"));
  const planted = join(dir, "written");
  const script = `(true > '${planted}') 2>/dev/null && exit 3; echo ${ISOLATED}`;
  const args = [
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--ro-bind",
    dir,
    dir,
    "--",
    "/bin/sh",
    "-c",
    script,
  ];
  return { dir, planted, args };
}

interface ProbeRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/** Undefined when the probe's sandbox really kept its read-only folder read-only; else what went wrong. */
function judgeProbe(dir: string, planted: string, result: ProbeRun): string | undefined {
  if (existsSync(planted) || readdirSync(dir).length > 0) return "a write inside its sandbox reached the host";
  if (result.status === 0 && result.stdout.trim() === ISOLATED) return undefined;
  const said = result.stderr.trim().split("\n")[0]?.trim();
  if (said) return said;
  if (result.error) return result.error.message;
  if (result.status === 3) return "a write inside its sandbox did not fail";
  return result.signal ? `it ended with ${result.signal}` : `it exited with ${result.status}`;
}

const PROBE_TIMEOUT_MS = 10_000;

/** Undefined when `bwrap` made a sandbox that really kept a read-only folder read-only; else what went wrong. */
function probe(bwrap: string): string | undefined {
  const { dir, planted, args } = probeSetUp();
  try {
    const result = spawnSync(bwrap, args, {
      encoding: "utf8",
      timeout: PROBE_TIMEOUT_MS,
      stdio: ["ignore", "pipe", "pipe"],
    });
    return judgeProbe(dir, planted, {
      status: result.status,
      signal: result.signal,
      stdout: result.stdout ?? "",
      stderr: result.stderr ?? "",
      ...(result.error ? { error: result.error } : {}),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same probe without blocking: bubblewrap starts while the dispatch reads its agents and config. */
function probeInBackground(bwrap: string): Promise<string | undefined> {
  const { dir, planted, args } = probeSetUp();
  return new Promise<ProbeRun>((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const done = (run: Omit<ProbeRun, "stdout" | "stderr">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...run, stdout, stderr });
    };
    const child = spawn(bwrap, args, { stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error) => done({ status: null, signal: null, error }));
    child.on("close", (status, signal) => done({ status, signal }));
  })
    .then((run) => judgeProbe(dir, planted, run))
    .finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Each bwrap's probe outcome, once known (for the process: one probe each). */
function probeOutcomes(): Map<string, string | undefined> {
  return perProcess("sandbox-probe", () => new Map<string, string | undefined>());
}

/** Probes started ahead and not yet done, by bwrap path (this load's own). */
const probesUnderWay = new Map<string, Promise<void>>();

/**
 * Starts the probe of the bwrap findWorkingBwrap would use, without waiting, so that a dispatch that asked for a
 * sandbox finds it done: the same probe, kept alike. Resolves once it is done (at once when there is nothing to do).
 * findWorkingBwrap still decides; until this resolves it would probe again itself.
 */
export function probeAhead(
  dirs: readonly string[] = bwrapDirs(),
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  if (platform !== "linux") return Promise.resolve();
  const bwrap = bwrapInSystemDirs(dirs);
  if (!bwrap || probeOutcomes().has(bwrap)) return Promise.resolve();
  let underWay = probesUnderWay.get(bwrap);
  if (!underWay) {
    underWay = probeInBackground(bwrap)
      .then(
        (problem) => {
          probeOutcomes().set(bwrap, problem);
        },
        () => undefined, // could not even start it: findWorkingBwrap probes at the dispatch, as without this
      )
      .finally(() => probesUnderWay.delete(bwrap));
    probesUnderWay.set(bwrap, underWay);
  }
  return underWay;
}

export function findWorkingBwrap(
  dirs: readonly string[] = bwrapDirs(),
  platform: NodeJS.Platform = process.platform,
): BwrapLookup {
  if (platform !== "linux") return { ok: false, reason: { kind: "platform", platform } };
  const bwrap = bwrapInSystemDirs(dirs);
  if (!bwrap) return { ok: false, reason: { kind: "not-found", dirs } };
  const probes = probeOutcomes();
  if (!probes.has(bwrap)) probes.set(bwrap, probe(bwrap));
  const problem = probes.get(bwrap);
  return problem === undefined
    ? { ok: true, bwrap }
    : { ok: false, reason: { kind: "broken", bwrap, detail: problem } };
}

/*
 * What a sandboxed child's mounts are made of, read from the disk at dispatch: which secrets exist (a folder or a
 * file), the agent dir's entries, the folders under the private /tmp the child must still read (its working
 * folder, the home folder, the node and pi it runs, the extensions it loads), and under `workspace-write` what in
 * the working folder stays read-only (whether each exists, and the repository's git dirs, asked of git with its
 * hooks and fsmonitor off). Paths are taken with links resolved, as bubblewrap mounts them.
 */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A secret that exists (a link is hidden where it points to, and at its own path). */
function existingSecrets(paths: readonly string[]): HiddenSecret[] {
  const found: HiddenSecret[] = [];
  for (const path of paths) {
    try {
      lstatSync(path);
    } catch {
      continue;
    }
    try {
      const target = realpathSync(path);
      found.push({ path: target, kind: statSync(target).isDirectory() ? "directory" : "file" });
    } catch {
      // a dangling link: nothing to read through it
    }
  }
  return found;
}

/** The folder a file of an installed package lives under: what is before its first `node_modules`, else its folder. */
export function packageRootOf(file: string): string {
  const marker = `${sep}node_modules${sep}`;
  const at = file.indexOf(marker);
  if (at > 0) return file.slice(0, at);
  try {
    if (statSync(file).isDirectory()) return file;
  } catch {
    // not there: its folder still names where it would be
  }
  return dirname(file);
}

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Node's compile cache (`NODE_COMPILE_CACHE`, else `<temp dir>/node-compile-cache`, which pi 1.x turns on), bound
 * back read-only: Node reads a cache it cannot write (it only fails, silently, to add entries at exit), so the child
 * does not compile pi itself afresh, and nothing the child writes there reaches another pi. jiti's cache is not
 * bound: jiti ignores a folder it cannot write, so the child is handed copies (src/sandbox/handed-files.ts).
 */
export function nodeCompileCacheDirs(env: NodeJS.ProcessEnv): string[] {
  const dir = env.NODE_COMPILE_CACHE || join(tmpdir(), "node-compile-cache");
  return existsSync(dir) ? [dir] : [];
}

export interface LayoutInputs {
  level: Exclude<SandboxLevel, "off">;
  cwd: string;
  agentDir: string;
  taskDir: string;
  home: string;
  /** `$sandboxHide` from the user file. */
  extraHidden: readonly string[];
  /** Files the child runs or loads: node, pi's entry, each `-e`. */
  programs: readonly string[];
  /** Folders it only reads (Node's compile cache). */
  readOnly?: readonly string[];
  /**
   * Protected paths to take as missing while they are empty: those a warm child's own bubblewrap made (src/run/
   * warm-pool.ts), which the child the call would start finds missing, as the warm child did.
   */
  asMissing?: readonly string[];
}

/**
 * The repository's git dir and common dir for `cwd`, absolute, as git finds them; none outside a repository or
 * without git. git runs with its fsmonitor and hooks off, so that a planted `.git/config` runs nothing here.
 */
export function gitDirsOf(cwd: string): string[] {
  // The settings of every safe git call (src/worktree/git.ts), without its read of the repository's drivers:
  // rev-parse reads no index and runs no driver, and a dispatch should not pay for a second git process.
  const args = [
    "--no-pager",
    ...SAFE_CONFIG.flatMap((setting) => ["-c", setting]),
    "rev-parse",
    "--git-dir",
    "--git-common-dir",
  ];
  const result = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    // Without GIT_DIR and its kin from pi's environment: the folder decides which repository it is.
    env: gitEnvironment(process.env),
    timeout: 10_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  if (result.status !== 0 || typeof result.stdout !== "string") return [];
  return result.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (isAbsolute(line) ? line : resolve(cwd, line)));
}

export interface ProtectedWorkspace {
  paths: ProtectedPath[];
  /** Protected names that are links: a mount would protect the link's target, never the link, so none is made. */
  links: string[];
}

/**
 * What a `workspace-write` child may only read in its working folder `cwd` (real): the names git and pi load
 * from it, each marked whether it exists, and the repository's git dirs that lie inside the folder.
 */
export function readProtectedWorkspace(
  cwd: string,
  gitDirs: readonly string[] = gitDirsOf(cwd),
  asMissing: readonly string[] = [],
): ProtectedWorkspace {
  const paths: ProtectedPath[] = [];
  const links: string[] = [];
  for (const entry of PROTECTED_WORKSPACE_ENTRIES) {
    const path = join(cwd, entry.name);
    const found = lstatSync(path, { throwIfNoEntry: false });
    const stats = found && asMissing.includes(path) && isEmptyMountPoint(path, found) ? undefined : found;
    if (stats?.isSymbolicLink()) links.push(path);
    else
      paths.push({
        path,
        kind: stats ? (stats.isDirectory() ? "directory" : "file") : entry.kind,
        exists: stats !== undefined,
      });
  }
  for (const dir of gitDirs) {
    const path = real(dir);
    if (isInside(cwd, path) && path !== cwd && !paths.some((entry) => entry.path === path))
      paths.push({ path, kind: "directory", exists: existsSync(path) });
  }
  return {
    paths: paths.filter(
      (entry) =>
        entry.exists ||
        !paths.some((other) => other.exists && other.path !== entry.path && isInside(other.path, entry.path)),
    ),
    links,
  };
}

export function readSandboxLayout(inputs: LayoutInputs): SandboxLayout & { protectedLinks: string[] } {
  const agentDir = real(inputs.agentDir);
  const home = real(inputs.home);
  const cwd = real(inputs.cwd);
  const workspace =
    inputs.level === "workspace-write"
      ? readProtectedWorkspace(cwd, gitDirsOf(cwd), inputs.asMissing)
      : { paths: [], links: [] };
  return {
    level: inputs.level,
    cwd,
    agentDir,
    agentDirEntries: entriesOf(agentDir),
    taskDir: real(inputs.taskDir),
    // Once each: node, pi and the `-e` extensions often share one package root, and each entry is a mount.
    keepVisible: [
      ...new Set([
        home,
        ...inputs.programs.map((file) => packageRootOf(real(file))),
        ...(inputs.readOnly ?? []).map(real),
      ]),
    ],
    secrets: existingSecrets([
      ...new Set([
        ...hiddenPaths(inputs.home, inputs.extraHidden),
        ...hiddenPaths(home, inputs.extraHidden),
        ...hiddenSystemPaths(process.getuid?.()),
      ]),
    ]),
    protectedPaths: workspace.paths,
    protectedLinks: workspace.links,
  };
}
