/**
 * The one safe git call, and the check that a worktree still leads to the git dir git made for it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/*
 * Running git for the worktree isolation and merge-back: always through execFile (no shell, so no quoting of
 * paths or task text), with bounded output, a time limit, no terminal prompt and the C locale (so git's words can
 * be read). Synchronous on purpose: a worktree is created during a dispatch and finished while a task's result is
 * recorded, which also happens synchronously when pi exits; each call is a few milliseconds.
 *
 * Every call is a safe git call (safeGitArgs): a repository's own config (`.git/config`, a worktree's config) can
 * be written by a child or come with a hostile repository, and git runs commands named there on ordinary
 * commands (an fsmonitor hook on every index read, hooks, filter drivers via attributes). None of them may run
 * in the person's pi.
 */
/** The most any one git call may print before it is cut off (a diff stat of a huge change, a long status). */
const GIT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** How long one git call may take (a checkout of a large repository is the slowest). */
const GIT_TIMEOUT_MS = 60_000;

export type GitResult = { ok: true; stdout: string } | { ok: false; missing: boolean; message: string };

/**
 * Git variables that would point the call at another repository than the folder given (they are set while a
 * git hook runs pi, for example), or run a program of their own (an external diff); the folder must decide.
 */
const DROPPED_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_COMMON_DIR",
  "GIT_PREFIX",
  "GIT_EXTERNAL_DIFF",
];

export function gitEnvironment(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
    LANGUAGE: "C",
    GIT_OPTIONAL_LOCKS: "0",
    // No pager or editor ever runs for the package (its output is read, its messages given with -m).
    GIT_PAGER: "cat",
    GIT_EDITOR: ":",
    // A partial clone would fetch missing objects from its remote (network, credential helpers): not for us.
    GIT_NO_LAZY_FETCH: "1",
    ...extra,
  };
  for (const name of DROPPED_VARIABLES) delete env[name];
  return env;
}

function firstLines(text: string, count: number): string {
  return text.trim().split("\n").slice(0, count).join(" ").trim();
}

/**
 * Settings put on every call, whatever any config says (a `-c` outranks every config file):
 * - `core.fsmonitor=false`: git runs the fsmonitor hook on every index read (status, add, diff, merge);
 * - `core.hooksPath=/dev/null`: no hook runs (post-checkout on `worktree add`, the merge's hooks, auto-gc's);
 * - `core.untrackedCache=false`: nothing cached from an earlier, possibly foreign, run decides what is untracked;
 * - `core.pager=cat`: no pager command (the package never has a terminal, but a config cannot change that);
 * - `submodule.recurse=false`: a checkout or merge does not go into submodules (and fetch them from URLs);
 * - `protocol.allow=never`: the package's git never talks to a remote (ssh commands, `ext::` transports,
 *   credential helpers all sit behind that);
 * - `maintenance.auto=false`, `gc.auto=0`: no background maintenance started by a merge or commit.
 * Diffs are also run with `--no-ext-diff --no-textconv` by their callers.
 */
export const SAFE_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.untrackedCache=false",
  "core.pager=cat",
  "submodule.recurse=false",
  "protocol.allow=never",
  "maintenance.auto=false",
  "gc.auto=0",
];

/**
 * Configuration keys that name a command git runs on ordinary commands, when a repository's file (not the
 * person's own global or system config) defines them: filter drivers (run on add, status, checkout and merge
 * for paths `.gitattributes` assigns to them), diff drivers, merge drivers, and the signing programs a merge
 * commit would call. Each is overridden with an empty or default value.
 */
const DRIVER_KEYS = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|command|textconv|driver)$/;
const PROGRAM_DEFAULTS: Record<string, string> = {
  "gpg.program": "gpg",
  "gpg.openpgp.program": "gpg",
  "gpg.x509.program": "gpgsm",
  "gpg.ssh.program": "ssh-keygen",
  "gpg.ssh.defaultkeycommand": "",
};
/** Config scopes the person owns; everything else (local, worktree, included from them) is the repository's. */
const PERSON_SCOPES = new Set(["system", "global", "command"]);

/** Parses `git config --show-scope --null --get-regexp` output into `-c` overrides. Pure; exported for tests. */
export function repositoryOverrides(output: string): { ok: true; overrides: string[] } | { ok: false; key: string } {
  const fields = output.split("\0");
  const overrides = new Set<string>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i] ?? "";
    const entry = fields[i + 1] ?? "";
    const key = entry.split("\n", 1)[0] ?? "";
    if (PERSON_SCOPES.has(scope)) continue;
    const lower = key.toLowerCase();
    if (lower in PROGRAM_DEFAULTS) {
      overrides.add(`${lower}=${PROGRAM_DEFAULTS[lower]}`);
      continue;
    }
    const driver = DRIVER_KEYS.exec(key);
    if (!driver) continue;
    // A driver name `-c` could not say back exactly (an `=` or a line break in it): refuse rather than guess.
    if (/[=\n\r\0]/.test(driver[2]!)) return { ok: false, key };
    overrides.add(`${key}=`);
    if (driver[1] === "filter") overrides.add(`filter.${driver[2]}.required=false`);
  }
  return { ok: true, overrides: [...overrides] };
}

const CONFIG_QUERY = ["config", "--show-scope", "--null", "--get-regexp", "^(filter|diff|merge|gpg)\\."];

function exec(
  cwd: string,
  args: readonly string[],
  extraEnv: Record<string, string>,
  maxOutputBytes: number,
): GitResult {
  try {
    const stdout = execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      env: gitEnvironment(process.env, extraEnv),
      maxBuffer: maxOutputBytes,
      timeout: GIT_TIMEOUT_MS,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    return { ok: true, stdout };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string | Buffer; status?: number | null };
    // A spawn that fails with ENOENT in a folder that exists means there is no git to run.
    if (failure.code === "ENOENT" && existsSync(cwd))
      return { ok: false, missing: true, message: "git is not installed (no git on PATH)" };
    const stderr = typeof failure.stderr === "string" ? failure.stderr : (failure.stderr?.toString("utf8") ?? "");
    // `git config --get-regexp` finding nothing exits 1 with nothing said: an empty answer, not a failure.
    if (failure.status === 1 && !stderr.trim() && args.includes("--get-regexp")) return { ok: true, stdout: "" };
    const message = firstLines(stderr, 3) || failure.message;
    return { ok: false, missing: false, message: message.replace(/^fatal: /, "") };
  }
}

const asConfigArgs = (settings: readonly string[]) => settings.flatMap((setting) => ["-c", setting]);

/**
 * The arguments before a git command that make it a safe git call in `cwd`: no pager, SAFE_CONFIG, and the
 * overrides of the command-running keys the repository's own config defines (read first: reading config runs
 * nothing). Fails when that config cannot be read, so nothing runs on a config the package could not see.
 */
function safeGitArgs(cwd: string): { ok: true; args: string[] } | { ok: false; missing: boolean; message: string } {
  const base = ["--no-pager", ...asConfigArgs(SAFE_CONFIG)];
  const config = exec(cwd, [...base, ...CONFIG_QUERY], {}, GIT_MAX_OUTPUT_BYTES);
  if (!config.ok) return config;
  const parsed = repositoryOverrides(config.stdout);
  if (!parsed.ok)
    return {
      ok: false,
      missing: false,
      message: `the repository's config names a driver git cannot be told to skip (${parsed.key}); nothing was run`,
    };
  return { ok: true, args: [...base, ...asConfigArgs(parsed.overrides)] };
}

/** Runs `git <args>` in `cwd` as a safe git call (safeGitArgs); never throws. */
export function runGit(
  cwd: string,
  args: readonly string[],
  extraEnv: Record<string, string> = {},
  maxOutputBytes: number = GIT_MAX_OUTPUT_BYTES,
): GitResult {
  const safe = safeGitArgs(cwd);
  if (!safe.ok) return safe;
  return exec(cwd, [...safe.args, ...args], extraEnv, maxOutputBytes);
}

/*
 * Before the package runs any git command that reads a task worktree's index (status, add, ls-files, diff), it
 * checks that the worktree still leads to the git dir git made for it: `<repository's common dir>/worktrees/<name>`,
 * whose `gitdir` file points back at this worktree's `.git` file, and that the worktree's common dir is the
 * project's. A child can replace the `.git` file (or make a repository of its own there) whose config runs
 * commands on an index read; then nothing is run there, and the worktree is left as it is and reported.
 */
/** `gone`: the worktree's `.git` is not there at all (nothing of another repository is in its place). */
export type GitDirCheck = { ok: true } | { ok: false; found: string; expected: string; gone?: true };

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** What a worktree's `.git` is when it is not the file git wrote, or undefined when it is a file. */
function dotGitShape(dotGit: string): string | undefined {
  try {
    const stat = lstatSync(dotGit);
    if (stat.isFile()) return undefined;
    if (stat.isSymbolicLink()) return "a symbolic link";
    return stat.isDirectory() ? "a repository of its own" : "not a file";
  } catch {
    return "missing";
  }
}

/** The git dir git made for the worktree whose `.git` file is `dotGit`: the entry of `<common>/worktrees` that points back at it. */
function adminDirOf(commonDir: string, dotGit: string): string | undefined {
  const target = real(dotGit);
  if (!target) return undefined;
  let names: string[];
  try {
    names = readdirSync(join(commonDir, "worktrees"));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const admin = join(commonDir, "worktrees", name);
    try {
      if (real(resolve(admin, readFileSync(join(admin, "gitdir"), "utf8").trim())) === target) return real(admin);
    } catch {
      // not a worktree entry git could use either
    }
  }
  return undefined;
}

/** `repoRoot`: any folder of the project (the person's working tree); `path`: the task's worktree folder. */
export function checkWorktreeGitDir(repoRoot: string, path: string): GitDirCheck {
  const dotGit = join(path, ".git");
  const projectCommon = runGit(repoRoot, ["rev-parse", "--git-common-dir"]);
  const commonDir = projectCommon.ok ? real(resolve(repoRoot, projectCommon.stdout.trim())) : undefined;
  if (!commonDir)
    return {
      ok: false,
      found: "a repository the package cannot compare (the project's git dir could not be read)",
      expected: join(repoRoot, ".git", "worktrees", basename(path)),
    };
  // Git names a worktree's git dir after its folder; the real entry is the one whose gitdir file points back.
  const expected = adminDirOf(commonDir, dotGit) ?? join(commonDir, "worktrees", basename(path));
  const shape = dotGitShape(dotGit);
  if (shape)
    return {
      ok: false,
      found: `${dotGit} itself (${shape})`,
      expected,
      ...(shape === "missing" ? { gone: true as const } : {}),
    };
  const there = runGit(path, ["rev-parse", "--git-dir", "--git-common-dir"]);
  if (!there.ok) return { ok: false, found: `a git dir git cannot read (${there.message})`, expected };
  const [gitDirText = "", commonText = ""] = there.stdout.split("\n");
  const gitDir = resolve(path, gitDirText.trim());
  const found = real(gitDir) ?? gitDir;
  const ours =
    found === expected &&
    dirname(found) === join(commonDir, "worktrees") &&
    real(resolve(path, commonText.trim())) === commonDir;
  return ours ? { ok: true } : { ok: false, found, expected };
}

/** The line the person and the model read, in a task's result and a refused merge. */
export function gitDirReplacedText(path: string, check: { found: string; expected: string }): string {
  return `the worktree's git dir was replaced: ${join(path, ".git")} leads to ${check.found}, not to ${check.expected}`;
}
