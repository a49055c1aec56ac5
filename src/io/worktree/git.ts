/**
 * Running git for the worktree isolation: always through execFile (no shell, so no quoting of paths or task
 * text), with bounded output, a time limit, no terminal prompt and the C locale (so git's words can be read).
 * Synchronous on purpose: a worktree is created during a dispatch and finished while a task's result is
 * recorded, which also happens synchronously when pi exits; each call is a few milliseconds.
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
 * git hook runs pi, for example); the folder must decide.
 */
const REPOSITORY_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX"];

export function gitEnvironment(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", LANGUAGE: "C", GIT_OPTIONAL_LOCKS: "0", ...extra };
  for (const name of REPOSITORY_VARIABLES) delete env[name];
  return env;
}

function firstLines(text: string, count: number): string {
  return text.trim().split("\n").slice(0, count).join(" ").trim();
}

/**
 * Put before every call: no hook of the repository runs for the extension's own git calls (a post-checkout
 * when a worktree is made, prepare-commit-msg or post-commit when it is committed), so finishing a task never
 * runs code from the project's hooks inside pi.
 */
export const NO_HOOKS_ARGS: readonly string[] = ["-c", "core.hooksPath=/dev/null"];

/** Runs `git <args>` in `cwd`; never throws. */
export function runGit(cwd: string, args: readonly string[], extraEnv: Record<string, string> = {}, maxOutputBytes: number = GIT_MAX_OUTPUT_BYTES): GitResult {
  try {
    const stdout = execFileSync("git", [...NO_HOOKS_ARGS, ...args], {
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
    const message = firstLines(stderr, 3) || failure.message;
    return { ok: false, missing: false, message: message.replace(/^fatal: /, "") };
  }
}
