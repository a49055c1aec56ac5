/**
 * The test's work folder as a git project, for the worktree tests: git run without a shell, and a first commit
 * of what the folder holds (the worker agent file) plus a README.
 */
import { execFileSync } from "node:child_process";
import type { PiEnv } from "./pi-env.ts";

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Makes the work folder a git project on `main` with one commit, made as "Person". `identityInConfig` also
 * writes that identity into the repository's config, for commits made later in the person's tree (a merge).
 */
export function gitProject(env: PiEnv, options: { identityInConfig?: boolean } = {}): string {
  const dir = env.workDir;
  env.writeWorkFile("README.md", "original\n");
  git(dir, "init", "--quiet", "-b", "main");
  if (options.identityInConfig) {
    git(dir, "config", "user.name", "Person");
    git(dir, "config", "user.email", "person@example.invalid");
  }
  git(dir, "add", "-A");
  git(dir, "-c", "user.name=Person", "-c", "user.email=person@example.invalid", "commit", "--quiet", "-m", "start");
  return dir;
}
