/**
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
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** The most any one git call may print before it is cut off (a diff stat of a huge change, a long status). */
export const GIT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** How long one git call may take (a checkout of a large repository is the slowest). */
export const GIT_TIMEOUT_MS = 60_000;

export type GitResult = { ok: true; stdout: string } | { ok: false; missing: boolean; message: string };

/**
 * Git variables that would point the call at another repository than the folder given (they are set while a
 * git hook runs pi, for example), or run a program of their own (an external diff); the folder must decide.
 */
const DROPPED_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX", "GIT_EXTERNAL_DIFF"];

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

function exec(cwd: string, args: readonly string[], extraEnv: Record<string, string>, maxOutputBytes: number): GitResult {
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
    const failure = (error as NodeJS.ErrnoException & { stderr?: string | Buffer; status?: number | null });
    // A spawn that fails with ENOENT in a folder that exists means there is no git to run.
    if (failure.code === "ENOENT" && existsSync(cwd)) return { ok: false, missing: true, message: "git is not installed (no git on PATH)" };
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
export function safeGitArgs(cwd: string): { ok: true; args: string[] } | { ok: false; missing: boolean; message: string } {
  const base = ["--no-pager", ...asConfigArgs(SAFE_CONFIG)];
  const config = exec(cwd, [...base, ...CONFIG_QUERY], {}, GIT_MAX_OUTPUT_BYTES);
  if (!config.ok) return config;
  const parsed = repositoryOverrides(config.stdout);
  if (!parsed.ok) return { ok: false, missing: false, message: `the repository's config names a driver git cannot be told to skip (${parsed.key}); nothing was run` };
  return { ok: true, args: [...base, ...asConfigArgs(parsed.overrides)] };
}

/** Runs `git <args>` in `cwd` as a safe git call (safeGitArgs); never throws. */
export function runGit(cwd: string, args: readonly string[], extraEnv: Record<string, string> = {}, maxOutputBytes: number = GIT_MAX_OUTPUT_BYTES): GitResult {
  const safe = safeGitArgs(cwd);
  if (!safe.ok) return safe;
  return exec(cwd, [...safe.args, ...args], extraEnv, maxOutputBytes);
}
