/**
 * Attacks on the package's own git calls and on merge-back, with the real pi, real git and the fake model scripting
 * the child's commands (no sandbox: the package's git must be safe whatever the child could write). Each planted
 * script writes a marker into the test's temp root, outside the work and agent dirs; an attack test passes when no
 * marker appears and the person's files are as they were.
 * - A worktree child swaps its `.git` for a repository of its own with `core.fsmonitor` set: the package runs no
 *   index-reading git there, leaves the worktree as it is and says so.
 * - The project's `.git/config` sets `core.fsmonitor`: a worktree task, `/subagent-worktrees` and its merge run none of it.
 * - Merge-back refuses a branch that would overwrite the person's git-ignored `.env`, then one that adds a link into
 *   `~/.ssh`, naming each; a branch adding `.envrc`, `.pi/` and `AGENTS.md` files merges, and the report flags them.
 */
import { chmodSync, existsSync, lstatSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { gitProject } from "../harness/git-project.ts";
import { execFileSync } from "node:child_process";

const suite = useE2eSuite();

/** The test's own git, with the planted fsmonitor off (the test must not be the one that runs it). */
const safeGit = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "core.fsmonitor=false", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

function delegate(task: string): Promise<ReturnType<typeof runPi> extends Promise<infer R> ? R : never> {
  const action: FakeAction = {
    toolCalls: [{ name: "subagent", arguments: { agent: "worker", isolation: "worktree", task } }],
  };
  return runPi(["-e", EXTENSION_ENTRY, "-p", `Please delegate. ${fakeDirective([action])}`], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 120_000,
  });
}

function bashTask(text: string, command: string, answer: string): string {
  return `${text} ${fakeDirective([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: answer }])}`;
}

function slash(command: string) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", command], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 60_000,
  });
}

const sessionIdIn = (text: string) => /\[subagent session: ([0-9a-f-]{36})\]/.exec(text)?.[1];

/** A script that appends its name to a marker file in the test's root (outside work and agent dirs). */
function markerScript(name: string): { script: string; marker: string } {
  const marker = join(suite.env.root, `${name}-ran`);
  const script = join(suite.env.root, `${name}.sh`);
  execFileSync("sh", [
    "-c",
    `printf '#!/bin/sh\\necho ran >> %s\\n' "$2" > "$1" && chmod +x "$1"`,
    "sh",
    script,
    marker,
  ]);
  chmodSync(script, 0o755);
  return { script, marker };
}

const markerText = (marker: string) => (existsSync(marker) ? readFileSync(marker, "utf8") : "");

describe("the package's git calls run nothing a child or the repository planted", () => {
  it("a child that swaps its worktree's .git for its own repository with core.fsmonitor: nothing runs, the worktree is left as it is and the result says so", async () => {
    suite.newEnv();
    const dir = gitProject(suite.env);
    const marker = join(suite.env.root, "swapped-fsmonitor-ran");
    // The child's own repository, made where its .git file was, whose fsmonitor hook writes the marker.
    const swap = [
      "rm .git && git init -q . && git add -A && git -c user.name=c -c user.email=c@example.invalid commit -qm own",
      `printf '#!/bin/sh\\necho ran >> ${marker}\\n' > .git/fsm.sh && chmod +x .git/fsm.sh`,
      'git config core.fsmonitor "$PWD/.git/fsm.sh" && echo more > extra.txt',
    ].join(" && ");
    const result = await delegate(bashTask("Swap.", swap, "SWAPPED"));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("SWAPPED");
    expect(markerText(marker)).toBe("");
    const id = sessionIdIn(result.stdout);
    expect(id).toBeDefined();
    const path = join(suite.env.agentDir, "subagent-worktrees", id!);
    const gitDir = join(dir, ".git", "worktrees", id!);
    expect(result.stdout).toContain(
      `Worktree: kept as it is at ${path}; not merged into your branch; the worktree's git dir was replaced: ${path}/.git leads to ${path}/.git itself (a repository of its own), not to ${gitDir}; it was left as it is at ${path}: nothing there was committed or removed`,
    );
    // Left exactly as the child left it: its own repository, the untracked file, the branch at the start.
    expect(lstatSync(join(path, ".git")).isDirectory()).toBe(true);
    expect(readFileSync(join(path, "extra.txt"), "utf8")).toBe("more\n");
    expect(safeGit(dir, "rev-parse", `subagent/${id}`)).toBe(safeGit(dir, "rev-parse", "main"));
    // Listing and merging it still run nothing there.
    const merged = await slash(`/subagent-worktrees merge ${id}`);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toContain(
      `Cannot merge subagent/${id}: the worktree's git dir was replaced: ${path}/.git leads to ${path}/.git itself (a repository of its own), not to ${gitDir}. Nothing was merged.`,
    );
    expect(markerText(marker)).toBe("");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("a core.fsmonitor planted in the project's .git/config runs neither in a worktree task nor in /subagent-worktrees and its merge", async () => {
    suite.newEnv();
    const dir = gitProject(suite.env, { identityInConfig: true });
    const { script, marker } = markerScript("project-fsmonitor");
    safeGit(dir, "config", "core.fsmonitor", script);
    const write = fakeDirective([
      { toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "HI\n" } }] },
      { text: "WROTE-IT" },
    ]);
    const result = await delegate(`Write it. ${write}`);
    expect(result.code, result.stderr).toBe(0);
    const id = sessionIdIn(result.stdout);
    expect(id, result.stdout).toBeDefined();
    expect(result.stdout).toContain(`on branch subagent/${id}`);
    expect(markerText(marker)).toBe("");
    const listed = await slash("/subagent-worktrees");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`subagent/${id}`);
    const merged = await slash(`/subagent-worktrees merge ${id}`);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain(`Merged subagent/${id} into main`);
    expect(readFileSync(join(dir, "hello.txt"), "utf8")).toBe("HI\n");
    expect(markerText(marker)).toBe("");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("merge-back overwrites nothing of the person's and says what it brings", () => {
  it("refuses a branch that would overwrite the person's git-ignored .env, then one adding a link into ~/.ssh, naming each; nothing changes", async () => {
    suite.newEnv();
    suite.env.writeWorkFile(".gitignore", ".env\n");
    const dir = gitProject(suite.env, { identityInConfig: true });
    suite.env.writeWorkFile(".env", "PERSON SECRET\n");
    const commit = [
      "printf 'CHILD\\n' > .env && ln -s \"$HOME/.ssh/id_ed25519\" deploy-key",
      "git add -f .env deploy-key && git -c user.name=c -c user.email=c@example.invalid commit -qm 'add env and key'",
    ].join(" && ");
    const result = await delegate(bashTask("Commit.", commit, "COMMITTED"));
    expect(result.code, result.stderr).toBe(0);
    const id = sessionIdIn(result.stdout)!;
    const head = safeGit(dir, "rev-parse", "HEAD");

    const first = await slash(`/subagent-worktrees merge ${id}`);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(
      `Cannot merge subagent/${id}: it adds files that already exist in your working tree, untracked or ignored by git, which the merge would overwrite (1 file). Move them away first, or merge by hand. Nothing was merged.\n- .env`,
    );
    expect(readFileSync(join(dir, ".env"), "utf8")).toBe("PERSON SECRET\n");
    expect(safeGit(dir, "rev-parse", "HEAD")).toBe(head);

    renameSync(join(dir, ".env"), join(dir, ".env.person"));
    const second = await slash(`/subagent-worktrees merge ${id}`);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `Cannot merge subagent/${id}: it adds symbolic links that point outside the repository (1 link). Look at them first (git show subagent/${id} -- <path>), and merge by hand if you want them. Nothing was merged.\n- deploy-key -> ${suite.env.env.HOME}/.ssh/id_ed25519`,
    );
    expect(existsSync(join(dir, "deploy-key"))).toBe(false);
    expect(existsSync(join(dir, ".env"))).toBe(false);
    expect(safeGit(dir, "rev-parse", "HEAD")).toBe(head);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("merges a branch adding .envrc, .pi/ and AGENTS.md files, and the report names them before anyone runs anything", async () => {
    suite.newEnv();
    const dir = gitProject(suite.env, { identityInConfig: true });
    const writes: FakeAction[] = [
      {
        toolCalls: [
          { name: "write", arguments: { path: ".envrc", content: "export A=1\n" } },
          { name: "write", arguments: { path: ".pi/extensions/helper.ts", content: "export default () => {};\n" } },
          { name: "write", arguments: { path: "AGENTS.md", content: "Be kind.\n" } },
          { name: "write", arguments: { path: "notes.txt", content: "plain\n" } },
        ],
      },
      { text: "WROTE-THEM" },
    ];
    const result = await delegate(`Write them. ${fakeDirective(writes)}`);
    expect(result.code, result.stderr).toBe(0);
    const id = sessionIdIn(result.stdout)!;
    const merged = await slash(`/subagent-worktrees merge ${id}`);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain(`Merged subagent/${id} into main`);
    expect(merged.stderr).toContain(
      "Look before you run anything here: the merge brought files that pi, coding agents, git or your shell load or run later (3 files):\n- A .envrc\n- A .pi/extensions/helper.ts\n- A AGENTS.md",
    );
    expect(readFileSync(join(dir, ".envrc"), "utf8")).toBe("export A=1\n");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
