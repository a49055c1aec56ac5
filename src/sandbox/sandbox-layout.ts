/**
 * What a sandboxed child's mounts are made of, read from the disk at dispatch: which secrets exist (a folder or a
 * file), the agent dir's entries, the folders under the private /tmp the child must still read (its working
 * folder, the home folder, the node and pi it runs, the extensions it loads), and under `workspace-write` what in
 * the working folder stays read-only (whether each exists, and the repository's git dirs, asked of git with its
 * hooks and fsmonitor off). Paths are taken with links resolved, as bubblewrap mounts them.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { isInside, PROTECTED_WORKSPACE_ENTRIES } from "./bwrap-args.ts";
import type { HiddenSecret, ProtectedPath, SandboxLayout } from "./bwrap-args.ts";
import type { SandboxLevel } from "./levels.ts";
import { hiddenPaths, hiddenSystemPaths } from "./secrets.ts";
import { gitEnvironment, SAFE_CONFIG } from "../worktree/git.ts";

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
 * bound: jiti ignores a folder it cannot write, so the child is handed copies (src/sandbox/jiti-cache-entries.ts).
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
}

/**
 * The repository's git dir and common dir for `cwd`, absolute, as git finds them; none outside a repository or
 * without git. git runs with its fsmonitor and hooks off, so that a planted `.git/config` runs nothing here.
 */
export function gitDirsOf(cwd: string): string[] {
  // The settings of every safe git call (src/worktree/git.ts), without its read of the repository's drivers:
  // rev-parse reads no index and runs no driver, and a dispatch should not pay for a second git process.
  const args = ["--no-pager", ...SAFE_CONFIG.flatMap((setting) => ["-c", setting]), "rev-parse", "--git-dir", "--git-common-dir"];
  const result = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    // Without GIT_DIR and its kin from pi's environment: the folder decides which repository it is.
    env: gitEnvironment(process.env),
    timeout: 10_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  if (result.status !== 0 || typeof result.stdout !== "string") return [];
  return result.stdout.split("\n").filter((line) => line.trim() !== "").map((line) => (isAbsolute(line) ? line : resolve(cwd, line)));
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
export function readProtectedWorkspace(cwd: string, gitDirs: readonly string[] = gitDirsOf(cwd)): ProtectedWorkspace {
  const paths: ProtectedPath[] = [];
  const links: string[] = [];
  for (const entry of PROTECTED_WORKSPACE_ENTRIES) {
    const path = join(cwd, entry.name);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats?.isSymbolicLink()) links.push(path);
    else paths.push({ path, kind: stats ? (stats.isDirectory() ? "directory" : "file") : entry.kind, exists: stats !== undefined });
  }
  for (const dir of gitDirs) {
    const path = real(dir);
    if (isInside(cwd, path) && path !== cwd && !paths.some((entry) => entry.path === path)) paths.push({ path, kind: "directory", exists: existsSync(path) });
  }
  return { paths: paths.filter((entry) => entry.exists || !paths.some((other) => other.exists && other.path !== entry.path && isInside(other.path, entry.path))), links };
}

export function readSandboxLayout(inputs: LayoutInputs): SandboxLayout & { protectedLinks: string[] } {
  const agentDir = real(inputs.agentDir);
  const home = real(inputs.home);
  const cwd = real(inputs.cwd);
  const workspace = inputs.level === "workspace-write" ? readProtectedWorkspace(cwd) : { paths: [], links: [] };
  return {
    level: inputs.level,
    cwd,
    agentDir,
    agentDirEntries: entriesOf(agentDir),
    taskDir: real(inputs.taskDir),
    // Once each: node, pi and the `-e` extensions often share one package root, and each entry is a mount.
    keepVisible: [...new Set([home, ...inputs.programs.map((file) => packageRootOf(real(file))), ...(inputs.readOnly ?? []).map(real)])],
    secrets: existingSecrets([...new Set([...hiddenPaths(inputs.home, inputs.extraHidden), ...hiddenPaths(home, inputs.extraHidden), ...hiddenSystemPaths(process.getuid?.())])]),
    protectedPaths: workspace.paths,
    protectedLinks: workspace.links,
  };
}
