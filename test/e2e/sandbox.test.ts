/**
 * Sandboxed subagents with the real pi (both lines), real bubblewrap and the scripted fake model: a `read-only`
 * child can write neither in the project nor outside it, a `workspace-write` child writes only its folder (its
 * worktree with `isolation: "worktree"`, whose change comes back on the branch), neither reads the test HOME's
 * `~/.ssh`; a call tightens `general-purpose` and cannot loosen an agent's `read-only`; a timed-out sandboxed
 * child and the children of a `kill -9`'d pi leave no process behind; without `bwrap` the dispatch is refused
 * with the fix named and no child starts; a child has writable copies of jiti's cache entries for the package,
 * and what it writes there never reaches the host's cache.
 *
 * Contract tests (both pis) are tagged one by one; the others test our own logic and run on pi 1.x only.
 */
import { SANDBOXED_CHILD_MODULES } from "../../src/sandbox/hand-in.ts";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { bashTask, childBashOutput, mainToolResults, subagentCall } from "../harness/child-scripts.ts";
import { waitForFile, waitForNoProcesses, waitForProcess } from "../harness/processes.ts";
import { BWRAP_DIRS_ENV, bwrapInSystemDirs } from "../../src/sandbox/sandbox-layout.ts";
import { jitiCacheNames } from "../../src/sandbox/hand-in.ts";

const suite = useE2eSuite();

/** Skipped with a notice without bwrap, as the TUI tests are without tmux; mandatory under CI=true. */
function skipSandboxTests(): boolean {
  if (bwrapInSystemDirs()) return false;
  if (process.env.CI === "true")
    throw new Error(
      "Sandbox end-to-end tests need bubblewrap, and CI=true makes them mandatory: install it (apt-get install bubblewrap).",
    );
  console.warn("[sandbox] bwrap not found: skipping the sandbox end-to-end tests (they are mandatory under CI=true).");
  return true;
}
const SKIP = skipSandboxTests();
const SECRET = "SECRET-KEY-MATERIAL-7f3a";

/** A folder outside the private /tmp a child gets, where the person could write: the child must not. */
let outside = "";
beforeEach(() => {
  outside = mkdtempSync(join("/var/tmp", "pi-subagent-outside-"));
});
afterEach(() => {
  rmSync(outside, { recursive: true, force: true });
});

function newSandboxEnv(workerFrontmatter?: string) {
  const env = suite.newEnv(workerFrontmatter ? { workerFrontmatter } : {});
  const home = env.env.HOME as string;
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_test"), `${SECRET}\n`);
  return env;
}

function printPi(prompt: string, extraEnv?: NodeJS.ProcessEnv) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 120_000,
    ...(extraEnv ? { extraEnv } : {}),
  });
}

const probeCommand = (inside: string, outsideFile: string) =>
  `touch ${inside}; echo "inside:$?"; touch ${outsideFile}; echo "outside:$?"; cat ~/.ssh/id_test; echo "secret:$?"`;

describe.skipIf(SKIP)("read-only and workspace-write children (print mode)", () => {
  it("a read-only agent writes nothing in the project or outside it and cannot read ~/.ssh; its result arrives and names the sandbox", {
    tags: ["contract"],
  }, async () => {
    const env = newSandboxEnv("sandbox: read-only");
    const inside = join(env.workDir, "in-project.txt");
    const outsideFile = join(outside, "outside.txt");
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("RO-PROBE", probeCommand(inside, outsideFile), "RO-DONE") }), { text: "main done" }])}`;
    const run = await printPi(prompt);
    expect(run.code, run.stderr).toBe(0);
    const output = await childBashOutput(suite.fake, "RO-PROBE");
    expect(output).toMatch(/inside:1/);
    expect(output).toMatch(/outside:1/);
    expect(output).toMatch(/Read-only file system/);
    expect(output).toMatch(/secret:1/);
    expect(output).not.toContain(SECRET);
    expect(existsSync(inside)).toBe(false);
    expect(existsSync(outsideFile)).toBe(false);
    const result = mainToolResults(suite.fake).find((text) => text.includes("RO-DONE"));
    expect(result).toContain("[subagent sandbox: read-only]");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("a workspace-write agent writes in its folder, not outside it, and cannot read ~/.ssh", {
    tags: ["contract"],
  }, async () => {
    const env = newSandboxEnv("sandbox: workspace-write");
    const inside = join(env.workDir, "in-project.txt");
    const outsideFile = join(outside, "outside.txt");
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("WW-PROBE", probeCommand(inside, outsideFile), "WW-DONE") }), { text: "main done" }])}`;
    const run = await printPi(prompt);
    expect(run.code, run.stderr).toBe(0);
    const output = await childBashOutput(suite.fake, "WW-PROBE");
    expect(output).toMatch(/inside:0/);
    expect(output).toMatch(/outside:1/);
    expect(output).not.toContain(SECRET);
    expect(existsSync(inside)).toBe(true);
    expect(existsSync(outsideFile)).toBe(false);
    expect(mainToolResults(suite.fake).find((text) => text.includes("WW-DONE"))).toContain(
      "[subagent sandbox: workspace-write]",
    );
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("a read-only child's temp folder is its private /tmp, wherever the person's TMPDIR points", {
    tags: ["contract"],
  }, async () => {
    const env = newSandboxEnv("sandbox: read-only");
    // A TMPDIR the sandbox does not show (under /tmp, but no folder the child is given).
    const personTmp = join(env.root, "person-tmp");
    mkdirSync(personTmp);
    const command = 'file=$(mktemp) && echo "mktemp:ok:$file" || echo "mktemp:failed"';
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("TMP-PROBE", command, "TMP-DONE") }), { text: "main done" }])}`;
    const run = await printPi(prompt, { TMPDIR: personTmp });
    expect(run.code, run.stderr).toBe(0);
    expect(await childBashOutput(suite.fake, "TMP-PROBE")).toMatch(/mktemp:ok:\/tmp\/tmp\./);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it('a call with sandbox: "read-only" tightens general-purpose', async () => {
    const env = newSandboxEnv();
    const inside = join(env.workDir, "gp.txt");
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "general-purpose", sandbox: "read-only", task: bashTask("GP-TIGHT", `touch ${inside}; echo "inside:$?"`, "GP-DONE") }), { text: "main done" }])}`;
    const run = await printPi(prompt);
    expect(run.code, run.stderr).toBe(0);
    expect(await childBashOutput(suite.fake, "GP-TIGHT")).toMatch(/inside:1/);
    expect(existsSync(inside)).toBe(false);
    expect(mainToolResults(suite.fake).find((text) => text.includes("GP-DONE"))).toContain(
      "[subagent sandbox: read-only]",
    );
  });

  it('a call with sandbox: "off" does not loosen an agent\'s read-only', async () => {
    const env = newSandboxEnv("sandbox: read-only");
    const inside = join(env.workDir, "loosen.txt");
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", sandbox: "off", task: bashTask("RO-OFF", `touch ${inside}; echo "inside:$?"`, "RO-OFF-DONE") }), { text: "main done" }])}`;
    const run = await printPi(prompt);
    expect(run.code, run.stderr).toBe(0);
    expect(await childBashOutput(suite.fake, "RO-OFF")).toMatch(/inside:1/);
    expect(existsSync(inside)).toBe(false);
    expect(mainToolResults(suite.fake).find((text) => text.includes("RO-OFF-DONE"))).toContain(
      "[subagent sandbox: read-only]",
    );
  });

  it("a worktree child with workspace-write writes only its worktree, and its change comes back on the branch", {
    tags: ["contract"],
  }, async () => {
    const env = newSandboxEnv("sandbox: workspace-write\nisolation: worktree");
    const git = (...args: string[]) =>
      execFileSync("git", args, { cwd: env.workDir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    env.writeWorkFile("README.md", "original\n");
    git("init", "--quiet", "-b", "main");
    git("add", "-A");
    git("-c", "user.name=Person", "-c", "user.email=person@example.invalid", "commit", "--quiet", "-m", "start");
    const escape = join(env.workDir, "escape.txt");
    const command = `echo from-child > wt.txt; echo "worktree:$?"; touch ${escape}; echo "project:$?"`;
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("WT-PROBE", command, "WT-DONE") }), { text: "main done" }])}`,
    );
    expect(run.code, run.stderr).toBe(0);
    const output = await childBashOutput(suite.fake, "WT-PROBE");
    expect(output).toMatch(/worktree:0/);
    expect(output).toMatch(/project:1/);
    expect(existsSync(escape)).toBe(false);
    expect(existsSync(join(env.workDir, "wt.txt"))).toBe(false);
    const result = mainToolResults(suite.fake).find((text) => text.includes("WT-DONE")) ?? "";
    const id = /\[subagent session: ([0-9a-f-]{36})\]/.exec(result)?.[1];
    expect(id, result).toBeDefined();
    expect(git("show", `subagent/${id!}:wt.txt`)).toBe("from-child\n");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP)("the child's copies of pi's TypeScript cache", () => {
  it("a sandboxed child has its own writable copies of jiti's entries for the package, and what it writes there never reaches the host's cache", {
    tags: ["contract"],
  }, async () => {
    const env = newSandboxEnv("sandbox: read-only");
    // A temp folder of the test's own (under /tmp, so inside the child's private one): its jiti cache is this test's.
    const tmp = join(env.root, "tmp");
    mkdirSync(tmp);
    const cache = join(tmp, "jiti");
    const names = jitiCacheNames(EXTENSION_ENTRY);
    const entryName = `$(for n in ${names.join(" ")}; do [ -f ${cache}/$n ] && echo $n; done)`;
    const command = [
      `E=${cache}/${entryName}`,
      `[ -s "$E" ] && echo "have-entry:$(basename "$E")"`,
      `echo "copies:$(ls ${cache} | wc -l)"`,
      `echo "// POISON" >> "$E"; echo "append:$?"`,
      `echo "// POISON" > ${cache}/planted.mjs; echo "plant:$?"`,
    ].join("; ");
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("JITI-PROBE", command, "JITI-DONE") }), { text: "main done" }])}`,
      { TMPDIR: tmp },
    );
    expect(run.code, run.stderr).toBe(0);
    const output = await childBashOutput(suite.fake, "JITI-PROBE");
    // The parent pi compiled the package into the test's cache; the child got copies of those entries.
    const hostEntry = names.map((name) => join(cache, name)).find((path) => existsSync(path));
    expect(hostEntry, readdirSync(cache).join(" ")).toBeDefined();
    expect(output).toContain(`have-entry:${basename(hostEntry!)}`);
    const copies = Number(/copies:\s*(\d+)/.exec(output)?.[1]);
    // Every module the sandboxed child loads, but the refusing tool's, which the parent never compiled.
    expect(copies).toBeGreaterThanOrEqual(SANDBOXED_CHILD_MODULES.length - 1);
    // It may write its copies (jiti needs a writable folder to use it at all)...
    expect(output).toMatch(/append:0/);
    expect(output).toMatch(/plant:0/);
    // ...and none of it reaches the host's cache.
    expect(readFileSync(hostEntry!, "utf8")).not.toContain("POISON");
    expect(existsSync(join(cache, "planted.mjs"))).toBe(false);
    expect(readdirSync(cache).filter((name) => readFileSync(join(cache, name), "utf8").includes("POISON"))).toEqual([]);
    expect(mainToolResults(suite.fake).find((text) => text.includes("JITI-DONE"))).toContain(
      "[subagent sandbox: read-only]",
    );
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP)("every process of a sandboxed child ends", () => {
  it("a timed-out sandboxed child's sleep is ended with it", async () => {
    const env = newSandboxEnv("sandbox: workspace-write");
    const started = join(env.workDir, "sleep-started");
    const task = `Long job. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 300` } }] })}`;
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task }), { text: "main done" }])}`,
      { PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: "4000" },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(started)).toBe(true);
    expect(mainToolResults(suite.fake).join("\n")).toMatch(/timed out/);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("kill -9 of the parent pi leaves no sandboxed process behind", async () => {
    const env = newSandboxEnv("sandbox: workspace-write");
    const started = join(env.workDir, "sleep-started");
    const task = `Long job. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 300` } }] })}`;
    let piPid = 0;
    const run = runPi(
      ["-e", EXTENSION_ENTRY, "-p", `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task })])}`],
      {
        env: env.env,
        cwd: env.workDir,
        timeoutMs: 120_000,
        onSpawn: (pid) => (piPid = pid),
      },
    );
    await waitForFile(started, 90_000);
    await waitForProcess(env.marker, "sleep 300", 10_000);
    await waitForProcess(env.marker, "bwrap", 10_000);
    process.kill(piPid, "SIGKILL");
    expect((await run).signal).toBe("SIGKILL");
    expect(await waitForNoProcesses(env.marker, 5000)).toEqual([]);
  });
});

describe("fail-closed", () => {
  it("without bwrap in the folders it is looked for in, the dispatch is refused with the fix named and no child starts", async () => {
    const env = newSandboxEnv("sandbox: read-only");
    const emptyBin = join(env.root, "empty-bin");
    mkdirSync(emptyBin);
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: "NEVER-STARTS" }), { text: "main done" }])}`,
      { [BWRAP_DIRS_ENV]: emptyBin },
    );
    expect(run.code, run.stderr).toBe(0);
    const refusal = mainToolResults(suite.fake).find((text) => text.includes("Cannot start the subagent")) ?? "";
    expect(refusal).toContain('Cannot start the subagent "worker": it must run in a sandbox (sandbox: read-only');
    expect(refusal).toContain(`bwrap (bubblewrap) was not found in ${emptyBin}`);
    expect(refusal).toContain("install bubblewrap");
    expect(refusal).toContain('"sandbox: off" for this agent');
    expect(suite.fake.requests.some(isWorkerRequest)).toBe(false);
    // Refused before anything was taken: no task folder, no session.
    const sessions = join(env.agentDir, "subagent-sessions");
    expect(existsSync(sessions) ? readdirSync(sessions).filter((name) => !name.startsWith(".")) : []).toEqual([]);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});
