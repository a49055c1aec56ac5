/**
 * The bubblewrap arguments that put one child pi in its sandbox. Pure: the caller finds what exists on disk.
 *
 * The whole file system is bound read-only, with a fresh `/dev`, `/proc` and a private, empty `/tmp`. Over that,
 * deepest last so that a folder's own mount never covers what is mounted inside it:
 * - what the child must still read under the private `/tmp` (its working folder, the pi it runs, a `HOME`
 *   there), bound back read-only;
 * - the agent dir as a private, writable copy: each entry bound back read-only, `auth.json` writable (pi locks it
 *   with a sibling `auth.json.lock` folder and rewrites it when it refreshes a login), so nothing the child writes
 *   there (an extension, a setting) reaches the person's pi;
 * - the task's own folder (its session) writable, and with `workspace-write` the working folder (the project
 *   folder, or the task's worktree);
 * - each secret that exists hidden: an empty tmpfs over a folder, `/dev/null` (unreadable there) over a file;
 * - the files handed in (the child's copy of jiti's cache entries): each copied by bubblewrap from an open
 *   descriptor into a new file of the private `/tmp`, writable by the child alone and gone with it.
 *
 * No `--unshare-pid`: the child's watch on its parent reads the parent's identity in `/proc` and ends its task's
 * processes by their pids, which a pid namespace would hide. No `--new-session`: the child is spawned detached
 * (its own session, no terminal to push input into), and the runner ends it by process group. No
 * `--die-with-parent`: it would SIGKILL the child pi before its own watch ends its bash tool's commands (each
 * in a group of its own); that watch already ends the whole task within a second of the parent's death.
 * `--cap-drop ALL`: bubblewrap started by root keeps every capability, with which the child could remount `/`.
 */
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import type { SandboxLevel } from "./levels.ts";

/** The folder every child gets empty and private. */
export const PRIVATE_TMP = "/tmp";

/** The descriptor of the first file handed in (after stdin, stdout and stderr); the rest follow in order. */
export const FIRST_HANDED_FD = 3;

/** The file in the agent dir the child may write (a refreshed login). */
export const AUTH_FILE = "auth.json";

export interface HiddenSecret {
  path: string;
  kind: "directory" | "file";
}

export interface SandboxLayout {
  level: Exclude<SandboxLevel, "off">;
  /** The child's working folder (the project folder, or its worktree). */
  cwd: string;
  agentDir: string;
  /** Names of the agent dir's entries, bound back over its private copy. */
  agentDirEntries: readonly string[];
  /** The task's folder under the agent dir (session file, prompt): writable. */
  taskDir: string;
  /** Paths the child must read; only those under the private /tmp need binding back. */
  keepVisible: readonly string[];
  /** Secrets that exist on disk. */
  secrets: readonly HiddenSecret[];
  /**
   * Where each file handed in is copied, in the order of their descriptors (`FIRST_HANDED_FD` on): paths under the
   * private /tmp, whose folders are made for them.
   */
  handedIn?: readonly string[];
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** Whether `path` is in the child's private /tmp (not /tmp itself), where the host's files are not seen. */
export function isInsidePrivateTmp(path: string): boolean {
  return isAbsolute(path) && isInside(PRIVATE_TMP, normalize(path)) && normalize(path) !== PRIVATE_TMP;
}

/**
 * Whether `path` is in the private /tmp and under none of the folders the layout binds there (a project or a home
 * folder under /tmp is bound back read-only, and bubblewrap could make no file inside it).
 */
export function isFreeInPrivateTmp(layout: Pick<SandboxLayout, "cwd" | "agentDir" | "taskDir" | "keepVisible">, path: string): boolean {
  if (!isInsidePrivateTmp(path)) return false;
  const bound = [layout.cwd, layout.agentDir, layout.taskDir, ...layout.keepVisible].filter(isInsidePrivateTmp).map((dir) => normalize(dir));
  return !bound.some((dir) => isInside(dir, normalize(path)));
}

function depth(path: string): number {
  return path.split(sep).filter((part) => part !== "").length;
}

interface Mount {
  target: string;
  args: string[];
}

export function bwrapArgs(layout: SandboxLayout): string[] {
  const mounts: Mount[] = [];
  const add = (target: string, ...args: string[]) => mounts.push({ target: normalize(target), args });
  for (const path of layout.keepVisible) {
    if (isInsidePrivateTmp(path)) add(path, "--ro-bind", normalize(path), normalize(path));
  }
  const cwd = normalize(layout.cwd);
  add(cwd, layout.level === "workspace-write" ? "--bind" : "--ro-bind", cwd, cwd);
  const agentDir = normalize(layout.agentDir);
  add(agentDir, "--tmpfs", agentDir);
  for (const name of layout.agentDirEntries) {
    const entry = join(agentDir, name);
    add(entry, name === AUTH_FILE ? "--bind" : "--ro-bind", entry, entry);
  }
  const taskDir = normalize(layout.taskDir);
  add(taskDir, "--bind", taskDir, taskDir);
  const madeDirs = new Set<string>();
  (layout.handedIn ?? []).forEach((target, index) => {
    const path = normalize(target);
    const dir = dirname(path);
    if (!madeDirs.has(dir)) add(dir, "--dir", dir);
    madeDirs.add(dir);
    add(path, "--perms", "0600", "--file", String(FIRST_HANDED_FD + index), path);
  });
  for (const secret of layout.secrets) {
    const path = normalize(secret.path);
    add(path, ...(secret.kind === "directory" ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]));
  }
  // Stable: mounts on one path keep their order; a deeper path always comes after its parents.
  const ordered = mounts.map((mount, index) => ({ mount, index })).sort((a, b) => depth(a.mount.target) - depth(b.mount.target) || a.index - b.index);
  return [
    "--cap-drop", "ALL",
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", PRIVATE_TMP,
    // The child's temp folder is its private /tmp, wherever the person's TMPDIR points (hidden or read-only here).
    "--setenv", "TMPDIR", PRIVATE_TMP,
    ...ordered.flatMap(({ mount }) => mount.args),
    "--chdir", cwd,
  ];
}
