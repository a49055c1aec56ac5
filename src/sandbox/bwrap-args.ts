/**
 * The child's mounts (pure): what is hidden, and bubblewrap's arguments from a layout.
 */
import { isAbsolute, join, normalize, dirname, sep } from "node:path";
import type { SandboxLevel } from "./levels.ts";
import { SANDBOX_ENV } from "../shared/nesting.ts";

/*
 * The person's secrets a sandboxed child never sees, as paths under their home folder (keys, tokens, shell
 * histories); the user-level `"$sandboxHide"` list adds more (a path starting with `~/`, or absolute). Beside
 * them, the sockets through which a child could act as the person (their agents, session bus, docker). Pure.
 */
const DEFAULT_HIDDEN_PATHS: readonly string[] = Object.freeze([
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.config/gcloud",
  "~/.netrc",
  "~/.docker/config.json",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.config/gh",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.pypirc",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.kube",
  "~/.azure",
  "~/.bash_history",
  "~/.zsh_history",
  "~/.history",
  "~/.sh_history",
  "~/.local/share/fish/fish_history",
  "~/.python_history",
  "~/.node_repl_history",
  "~/.psql_history",
  "~/.mysql_history",
  "~/.sqlite_history",
  "~/.lesshst",
]);

/** The person's runtime folder (`/run/user/<uid>`: ssh-agent, gpg-agent, the session bus, …) and docker's sockets. */
export function hiddenSystemPaths(uid: number | undefined): string[] {
  return [...(uid === undefined ? [] : [`/run/user/${uid}`]), "/var/run/docker.sock", "/run/docker.sock"];
}

/** `~/x` under `home`, an absolute path as it is; anything else (relative) is no path we can hide. */
function expandHiddenPath(path: string, home: string): string | undefined {
  const trimmed = path.trim();
  if (trimmed === "~") return normalize(home);
  if (trimmed.startsWith("~/")) return normalize(join(home, trimmed.slice(2)));
  return isAbsolute(trimmed) ? normalize(trimmed) : undefined;
}

export function hiddenPaths(home: string, extra: readonly string[]): string[] {
  const paths = [...DEFAULT_HIDDEN_PATHS, ...extra]
    .map((path) => expandHiddenPath(path, home))
    .filter((path): path is string => path !== undefined);
  return [...new Set(paths)];
}

/*
 * The bubblewrap arguments that put one child pi in its sandbox. Pure: the caller finds what exists on disk.
 *
 * The rule: a sandboxed child can write nothing that pi, this package, git or the person's usual tools later load
 * or execute outside the sandbox. The whole file system is bound read-only, with a fresh `/dev`, `/proc` and a
 * private, empty `/tmp`. Over that, deepest last so that a folder's own mount never covers what is mounted inside it:
 * - what the child must still read under the private `/tmp` (its working folder, the pi it runs, a `HOME`
 *   there), bound back read-only;
 * - the agent dir as a private copy: an empty tmpfs with each entry bound back read-only, except what the child
 *   must not see (pi's transcripts in `sessions/`, other tasks' folders) and `auth.json`, which is handed in as a
 *   copy of its own (pi rewrites it when it refreshes a login, and runs a key written `"!command"`: a writable
 *   person's file would carry a command out of the sandbox);
 * - the task's own folder (its session) writable, the only one in a read-only `subagent-sessions`; with
 *   `workspace-write` the working folder (the project folder, or the task's worktree), except what git and pi
 *   later load or run from it (`.git`, `.pi`, `.agents`, `.claude`, `AGENTS.md`, `CLAUDE.md`, the repository's git
 *   dirs): read-only, and an empty read-only folder or file where one does not exist yet, so the child cannot
 *   create it (bubblewrap makes the mount point on the host; the runner removes it when the child has ended);
 * - each secret that exists hidden: an empty tmpfs over a folder, `/dev/null` (unreadable there) over a file;
 * - the files handed in (the child's copy of `auth.json` and of jiti's cache entries): each copied by bubblewrap
 *   from an open descriptor into a new file of a private tmpfs, writable by the child alone and gone with it.
 *
 * `--unshare-pid`: the child and everything it starts live in a pid namespace of their own, so its commands can
 * signal only the task's own processes, none of the person's (the namespace's `/proc` shows only them too).
 * `--die-with-parent`: bubblewrap, the namespace's first process and the child pi each get SIGKILL when their
 * parent dies, so the parent pi's death (kill -9 included) ends the namespace's first process, and the kernel
 * then ends every process in the namespace, the bash tool's commands in groups of their own and daemons
 * included; the same happens when the child pi exits, since bubblewrap then exits with its status. That is why a
 * sandboxed child gets no `PI_SUBAGENT_PARENT` (its watch could not see the parent's pid) but
 * `PI_SUBAGENT_SANDBOX=<level>`, which also keeps it from dispatching subagents of its own. No `--new-session`:
 * the child is spawned detached (its own session, no terminal to push input into), and the runner ends it by
 * process group and tree, from the host's `/proc`, which sees every process of the namespace.
 * `--cap-drop ALL`: bubblewrap started by root keeps every capability, with which the child could remount `/`.
 */
/** The folder every child gets empty and private. */
const PRIVATE_TMP = "/tmp";

/** The descriptor of the first file handed in (after stdin, stdout and stderr); the rest follow in order. */
export const FIRST_HANDED_FD = 3;

/** The agent dir's login file: the child gets a copy of its own, never the person's file. */
export const AUTH_FILE = "auth.json";

/**
 * Entries of the agent dir a child never sees: pi's own transcripts, the other tasks' folders, the login file and
 * its lock, the record of the sandboxes' mount points (src/sandbox/mount-points.ts).
 */
const AGENT_DIR_ENTRIES_NOT_BOUND: readonly string[] = Object.freeze([
  "sessions",
  "subagent-sessions",
  AUTH_FILE,
  `${AUTH_FILE}.lock`,
  "subagent-mount-points",
]);

/**
 * What a `workspace-write` child may not write in its working folder, because git or pi later loads or runs it
 * outside the sandbox: folders, and files (which matters only for one that does not exist yet).
 */
export const PROTECTED_WORKSPACE_ENTRIES: readonly { name: string; kind: "directory" | "file" }[] = Object.freeze([
  { name: ".git", kind: "directory" },
  { name: ".pi", kind: "directory" },
  { name: ".agents", kind: "directory" },
  { name: ".claude", kind: "directory" },
  { name: "AGENTS.md", kind: "file" },
  { name: "CLAUDE.md", kind: "file" },
]);

/** A path a `workspace-write` child may only read: bound over read-only, or, when missing, an empty read-only one. */
export interface ProtectedPath {
  path: string;
  kind: "directory" | "file";
  exists: boolean;
}

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
  /** `workspace-write`: what stays read-only in the writable working folder (ignored under `read-only`). */
  protectedPaths?: readonly ProtectedPath[];
  /**
   * Where each file handed in is copied, in the order of their descriptors (`FIRST_HANDED_FD` on): paths under the
   * private /tmp, whose folders are made for them, or the agent dir's `auth.json` (its tmpfs holds it).
   */
  handedIn?: readonly string[];
}

/** The missing protected files, each made from an empty descriptor handed in after `handedIn`'s, in this order. */
export function missingProtectedFiles(layout: Pick<SandboxLayout, "level" | "protectedPaths">): ProtectedPath[] {
  if (layout.level !== "workspace-write") return [];
  return (layout.protectedPaths ?? []).filter((entry) => !entry.exists && entry.kind === "file");
}

/**
 * The host paths bubblewrap mounts over in the working folder (the protected paths), whose use the runner records
 * for every pi (src/sandbox/mount-points.ts): a missing one is made as a mount point and removed after the last
 * child using it, and an empty one may be another sandbox's mount point.
 */
export function protectedMountPoints(layout: Pick<SandboxLayout, "level" | "protectedPaths">): string[] {
  if (layout.level !== "workspace-write") return [];
  return (layout.protectedPaths ?? []).map((entry) => normalize(entry.path));
}

export function isInside(root: string, path: string): boolean {
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
export function isFreeInPrivateTmp(
  layout: Pick<SandboxLayout, "cwd" | "agentDir" | "taskDir" | "keepVisible">,
  path: string,
): boolean {
  if (!isInsidePrivateTmp(path)) return false;
  const bound = [layout.cwd, layout.agentDir, layout.taskDir, ...layout.keepVisible]
    .filter(isInsidePrivateTmp)
    .map((dir) => normalize(dir));
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
    if (AGENT_DIR_ENTRIES_NOT_BOUND.includes(name)) continue;
    const entry = join(agentDir, name);
    add(entry, "--ro-bind", entry, entry);
  }
  const taskDir = normalize(layout.taskDir);
  const sessionsDir = dirname(taskDir);
  if (sessionsDir === join(agentDir, "subagent-sessions")) {
    // An empty, read-only `subagent-sessions` holding the task's own folder only: no other task's session is seen.
    add(sessionsDir, "--tmpfs", sessionsDir, "--dir", taskDir, "--remount-ro", sessionsDir, "--bind", taskDir, taskDir);
  } else {
    add(taskDir, "--bind", taskDir, taskDir);
  }
  const madeDirs = new Set<string>([agentDir]);
  const handedIn = layout.handedIn ?? [];
  handedIn.forEach((target, index) => {
    const path = normalize(target);
    const dir = dirname(path);
    if (!madeDirs.has(dir)) add(dir, "--dir", dir);
    madeDirs.add(dir);
    add(path, "--perms", "0600", "--file", String(FIRST_HANDED_FD + index), path);
  });
  if (layout.level === "workspace-write") {
    let emptyFd = FIRST_HANDED_FD + handedIn.length;
    for (const entry of layout.protectedPaths ?? []) {
      const path = normalize(entry.path);
      if (entry.exists) add(path, "--ro-bind", path, path);
      else if (entry.kind === "directory") add(path, "--tmpfs", path, "--remount-ro", path);
      else add(path, "--perms", "0444", "--ro-bind-data", String(emptyFd++), path);
    }
  }
  for (const secret of layout.secrets) {
    const path = normalize(secret.path);
    add(path, ...(secret.kind === "directory" ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]));
  }
  // Stable: mounts on one path keep their order; a deeper path always comes after its parents.
  const ordered = mounts
    .map((mount, index) => ({ mount, index }))
    .sort((a, b) => depth(a.mount.target) - depth(b.mount.target) || a.index - b.index);
  return [
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    PRIVATE_TMP,
    // The child's temp folder is its private /tmp, wherever the person's TMPDIR points (hidden or read-only here).
    "--setenv",
    "TMPDIR",
    PRIVATE_TMP,
    "--setenv",
    SANDBOX_ENV,
    layout.level,
    ...ordered.flatMap(({ mount }) => mount.args),
    "--chdir",
    cwd,
  ];
}
