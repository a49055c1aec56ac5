/**
 * What a sandboxed child's mounts are made of, read from the disk at dispatch: which secrets exist (a folder or a
 * file), the agent dir's entries, and the folders under the private /tmp the child must still read (its working
 * folder, the home folder, the node and pi it runs, the extensions it loads). Paths are taken with links
 * resolved, as bubblewrap mounts them.
 */
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import type { HiddenSecret, SandboxLayout } from "../../core/sandbox/bwrap-args.ts";
import type { SandboxLevel } from "../../core/sandbox/levels.ts";
import { hiddenPaths } from "../../core/sandbox/secrets.ts";

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
 * bound: jiti ignores a folder it cannot write, so the child is handed copies (src/io/sandbox/jiti-cache-entries.ts).
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

export function readSandboxLayout(inputs: LayoutInputs): SandboxLayout {
  const agentDir = real(inputs.agentDir);
  const home = real(inputs.home);
  return {
    level: inputs.level,
    cwd: real(inputs.cwd),
    agentDir,
    agentDirEntries: entriesOf(agentDir),
    taskDir: real(inputs.taskDir),
    // Once each: node, pi and the `-e` extensions often share one package root, and each entry is a mount.
    keepVisible: [...new Set([home, ...inputs.programs.map((file) => packageRootOf(real(file))), ...(inputs.readOnly ?? []).map(real)])],
    secrets: existingSecrets([...new Set([...hiddenPaths(inputs.home, inputs.extraHidden), ...hiddenPaths(home, inputs.extraHidden)])]),
  };
}
