/**
 * Attacks on the sandbox (issue 34), with the real pi (both lines), real bubblewrap and the scripted fake model
 * running the child's commands. Each passes when the attack fails: a sandboxed child plants what pi, git or this
 * package later runs outside the sandbox, and the test then runs exactly that (an unsandboxed child, a new pi,
 * `git status`). Whatever planted code runs writes a marker into a folder outside the test's root (`/var/tmp`),
 * which a sandboxed child sees read-only; no marker may ever appear. A sandboxed child cannot signal a process of
 * the person's, and its own dispatch is refused in one sentence; two pi sessions in one folder share the record of
 * mount points, so one session's end never lets the other's child create a protected name.
 *
 * Contract tests (both pis) are tagged one by one; the others test our own logic and run on pi 1.x only.
 */
import { execFileSync, spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { bashTask, childBashOutput, mainToolResults, subagentCall, useMarkerFolder } from "../harness/child-scripts.ts";
import { gitProject } from "../harness/git-project.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { bwrapInSystemDirs } from "../../src/sandbox/sandbox-layout.ts";

const suite = useE2eSuite();
const SKIP = !bwrapInSystemDirs() && process.env.CI !== "true";

const marks = useMarkerFolder();

function printPi(prompt: string, extraEnv?: NodeJS.ProcessEnv) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 120_000,
    ...(extraEnv ? { extraEnv } : {}),
  });
}

/** An extension file that leaves `marker` when pi loads it. */
const plantedExtension = (marker: string) =>
  `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport default function () {}\n`;

describe.skipIf(SKIP)("the agent dir is the child's private copy", () => {
  it("a read-only child's \"!command\" keys in auth.json and models.json, settings and extensions never reach the person's pi; its login copy has no refresh token", {
    tags: ["contract"],
  }, async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: read-only" });
    const agentDir = env.agentDir;
    const authFile = join(agentDir, "auth.json");
    const REFRESH = `REFRESH-SECRET-${randomUUID()}`;
    const personAuth = JSON.stringify(
      { anthropic: { type: "oauth", access: "ACCESS-TOKEN-a1", refresh: REFRESH, expires: Date.now() + 3_600_000 } },
      null,
      2,
    );
    writeFileSync(authFile, personAuth);
    const personModels = readFileSync(join(agentDir, "models.json"), "utf8");
    const personSettings = readFileSync(join(agentDir, "settings.json"), "utf8");
    const mark = (name: string) => join(marks.dir, name);
    const authPlant = JSON.stringify({ fake: { type: "api_key", key: `!touch ${mark("auth")}; echo fake-key` } });
    const modelsPlant = personModels.replace('"fake-key"', JSON.stringify(`!touch ${mark("models")}; echo fake-key`));
    const command = [
      `cat ${authFile}; echo`,
      `printf '%s' '${authPlant}' > ${authFile}; echo "auth:$?"`,
      `printf '%s' '${modelsPlant.replace(/'/g, "")}' > ${join(agentDir, "models.json")}; echo "models:$?"`,
      `printf '{"packages":[]}' > ${join(agentDir, "settings.json")}; echo "settings:$?"`,
      `mkdir -p ${join(agentDir, "extensions")} && printf '%s' '${plantedExtension(mark("extension")).replace(/'/g, "")}' > ${join(agentDir, "extensions", "planted.ts")}; echo "extension:$?"`,
      `printf '{}' > ${join(agentDir, "subagent-isolation.json")}; echo "isolation:$?"`,
    ].join("; ");
    const prompt = `Delegate twice. ${fakeDirective([
      subagentCall({ agent: "worker", task: bashTask("PLANT-AGENT-DIR", command, "PLANT-DONE") }),
      subagentCall({ agent: "general-purpose", task: "AFTER-PLANT answer briefly" }),
      { text: "main done" },
    ])}`;
    const run = await printPi(prompt);
    expect(run.code, run.stderr).toBe(0);
    // The unsandboxed child ran after it, on the person's files.
    expect(
      suite.fake.requests.some((req) =>
        req.messages.some((m) => m.role === "user" && messageText(m).includes("AFTER-PLANT")),
      ),
    ).toBe(true);
    // A new pi starts on the person's files too.
    const next = await runPi(["-p", "hello again"], { env: env.env, cwd: env.workDir, timeoutMs: 60_000 });
    expect(next.code, next.stderr).toBe(0);
    expect(readdirSync(marks.dir)).toEqual([]);
    expect(readFileSync(authFile, "utf8")).toBe(personAuth);
    const output = await childBashOutput(suite.fake, "PLANT-AGENT-DIR");
    // The child read its own copy: the access token, never the refresh token.
    expect(output).toContain("ACCESS-TOKEN-a1");
    expect(output).not.toContain(REFRESH);
    // Its copy is its own to write; the rest of the agent dir is read-only to it.
    expect(output).toMatch(/auth:0/);
    expect(output).toMatch(/models:[1-9]/);
    expect(output).toMatch(/settings:[1-9]/);
    expect(mainToolResults(suite.fake).find((text) => text.includes("PLANT-DONE"))).toContain(
      "[subagent sandbox: read-only]",
    );
    expect(readFileSync(join(agentDir, "models.json"), "utf8")).toBe(personModels);
    expect(readFileSync(join(agentDir, "settings.json"), "utf8")).toBe(personSettings);
    expect(existsSync(join(agentDir, "extensions", "planted.ts"))).toBe(false);
    expect(existsSync(join(agentDir, "subagent-isolation.json"))).toBe(false);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP)("workspace-write: what later runs is read-only", () => {
  it("a workspace-write child cannot set core.fsmonitor, add a hook, or create .pi/extensions, .pi/agents/explore.md, AGENTS.md, CLAUDE.md, .agents or .claude; ordinary files stay writable, and no mount point is left behind", {
    tags: ["contract"],
  }, async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: workspace-write" });
    const dir = gitProject(env);
    const mark = (name: string) => join(marks.dir, name);
    const command = [
      `git config core.fsmonitor 'touch ${mark("fsmonitor")}; false'; echo "fsmonitor:$?"`,
      `printf '#!/bin/sh\\ntouch ${mark("hook")}\\n' > .git/hooks/post-checkout; echo "hook:$?"`,
      `mkdir -p .pi/extensions && printf '%s' '${plantedExtension(mark("project-extension")).replace(/'/g, "")}' > .pi/extensions/x.ts; echo "piext:$?"`,
      `printf -- '---\\nname: explore\\ndescription: planted\\n---\\nplanted\\n' > .pi/agents/explore.md; echo "explore:$?"`,
      `echo planted > AGENTS.md; echo "agentsmd:$?"`,
      `echo planted > CLAUDE.md; echo "claudemd:$?"`,
      `mkdir -p .agents/skills; echo "agentsdir:$?"`,
      `mkdir -p .claude/agents; echo "claudedir:$?"`,
      `rm -rf .git; echo "rmgit:$?"`,
      `echo ok > ordinary.txt; echo "ordinary:$?"`,
      `echo changed >> README.md; echo "readme:$?"`,
    ].join("; ");
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("WW-PLANT", command, "WW-PLANT-DONE") }), { text: "main done" }])}`,
    );
    expect(run.code, run.stderr).toBe(0);
    const output = await childBashOutput(suite.fake, "WW-PLANT");
    for (const attempt of [
      "fsmonitor",
      "hook",
      "piext",
      "explore",
      "agentsmd",
      "claudemd",
      "agentsdir",
      "claudedir",
      "rmgit",
    ]) {
      expect(output, attempt).toMatch(new RegExp(`${attempt}:[1-9]`));
    }
    expect(output).toMatch(/ordinary:0/);
    expect(output).toMatch(/readme:0/);
    expect(readFileSync(join(dir, "ordinary.txt"), "utf8")).toBe("ok\n");
    // Nothing planted: the project's files are as they were, and no mount point is left in the project.
    for (const name of [
      "AGENTS.md",
      "CLAUDE.md",
      ".agents",
      ".claude",
      ".pi/extensions",
      ".pi/agents/explore.md",
      ".git/hooks/post-checkout",
    ]) {
      expect(existsSync(join(dir, name)), name).toBe(false);
    }
    expect(readFileSync(join(dir, ".git", "config"), "utf8")).not.toContain("fsmonitor");
    // What would run them: git in the project, and a new pi (with an unsandboxed child) in it.
    execFileSync("git", ["status", "--porcelain"], { cwd: dir, stdio: "ignore" });
    execFileSync("git", ["checkout", "--quiet", "-b", "after"], { cwd: dir, stdio: "ignore" });
    const next = await printPi(
      `Again. ${fakeDirective([subagentCall({ agent: "general-purpose", task: "AFTER-WW answer briefly" }), { text: "main done" }])}`,
    );
    expect(next.code, next.stderr).toBe(0);
    expect(readdirSync(marks.dir)).toEqual([]);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("a workspace-write dispatch in a folder whose CLAUDE.md is a link is refused, naming it, and nothing starts", async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: workspace-write" });
    env.writeWorkFile("AGENTS.md", "instructions\n");
    symlinkSync("AGENTS.md", join(env.workDir, "CLAUDE.md"));
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: "NEVER-STARTS" }), { text: "main done" }])}`,
    );
    expect(run.code, run.stderr).toBe(0);
    const refusal = mainToolResults(suite.fake).find((text) => text.includes("Cannot start the subagent")) ?? "";
    expect(refusal).toContain(
      `Cannot start the subagent "worker" with sandbox: workspace-write: ${realpathSync(env.workDir)}/CLAUDE.md is a link`,
    );
    expect(refusal).toContain("Nothing was started.");
    expect(suite.fake.requests.some(isWorkerRequest)).toBe(false);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("a workspace-write worktree child cannot replace or rewrite its .git file, and its change still comes back on the branch", async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: workspace-write\nisolation: worktree" });
    const dir = gitProject(env);
    const evil = join(marks.dir, "evil-repo");
    const command = [
      `git init --quiet ${evil} 2>/dev/null; git -C ${evil} config core.fsmonitor 'touch ${join(marks.dir, "fsmonitor")}; false' 2>/dev/null`,
      `printf 'gitdir: ${evil}/.git\\n' > .git; echo "swap:$?"`,
      `rm -f .git; echo "rm:$?"`,
      `mv .git moved; echo "mv:$?"`,
      `echo from-child > wt.txt; echo "worktree:$?"`,
    ].join("; ");
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("WT-SWAP", command, "WT-SWAP-DONE") }), { text: "main done" }])}`,
    );
    expect(run.code, run.stderr).toBe(0);
    const output = await childBashOutput(suite.fake, "WT-SWAP");
    expect(output).toMatch(/swap:[1-9]/);
    expect(output).toMatch(/rm:[1-9]/);
    expect(output).toMatch(/mv:[1-9]/);
    expect(output).toMatch(/worktree:0/);
    const result = mainToolResults(suite.fake).find((text) => text.includes("WT-SWAP-DONE")) ?? "";
    const id = /\[subagent session: ([0-9a-f-]{36})\]/.exec(result)?.[1];
    expect(id, result).toBeDefined();
    expect(execFileSync("git", ["show", `subagent/${id!}:wt.txt`], { cwd: dir, encoding: "utf8" })).toBe(
      "from-child\n",
    );
    execFileSync("git", ["status", "--porcelain"], { cwd: dir, stdio: "ignore" });
    expect(readdirSync(marks.dir)).toEqual([]);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP)("sockets and secrets", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it("a read-only child cannot read ~/.git-credentials, gh's token, shell history, pi's transcripts or another task's session, and has no SSH_AUTH_SOCK", {
    tags: ["contract"],
  }, async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: read-only" });
    const home = env.env.HOME as string;
    const SECRET = `TOKEN-${randomUUID()}`;
    writeFileSync(join(home, ".git-credentials"), `https://person:${SECRET}@example.invalid\n`);
    mkdirSync(join(home, ".config", "gh"), { recursive: true });
    writeFileSync(join(home, ".config", "gh", "hosts.yml"), `github.com:\n  oauth_token: ${SECRET}\n`);
    writeFileSync(join(home, ".bash_history"), `export API_TOKEN=${SECRET}\n`);
    const otherTask = randomUUID();
    env.writeAgentDirFile(join("subagent-sessions", otherTask, "session.jsonl"), `{"secret":"${SECRET}"}\n`);
    env.writeAgentDirFile(join("sessions", "--work--", "transcript.jsonl"), `{"secret":"${SECRET}"}\n`);
    // An ssh-agent stand-in the person's pi knows of: a socket the child must not be pointed at.
    const socketPath = join(env.root, "agent.sock");
    server = createServer((socket) => socket.end("AGENT-ANSWERED\n"));
    await new Promise<void>((resolve) => server!.listen(socketPath, resolve));
    const connect = `node -e "require('net').connect(process.env.SSH_AUTH_SOCK||'${socketPath}').on('data',d=>{console.log('agent:'+d);process.exit(0)}).on('error',e=>{console.log('agent-refused:'+e.code);process.exit(1)})"`;
    const command = [
      `cat ~/.git-credentials; echo "credentials:$?"`,
      `cat ~/.config/gh/hosts.yml; echo "gh:$?"`,
      `cat ~/.bash_history; echo "history:$?"`,
      `echo "sock:\${SSH_AUTH_SOCK:-unset}"`,
      connect,
      `cat ${join(env.agentDir, "subagent-sessions", otherTask, "session.jsonl")}; echo "other-task:$?"`,
      `cat ${join(env.agentDir, "sessions", "--work--", "transcript.jsonl")}; echo "transcript:$?"`,
      `ls ${join(env.agentDir, "subagent-sessions")} | wc -l | sed 's/^/tasks:/'`,
    ].join("; ");
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("SECRETS-PROBE", command, "SECRETS-DONE") }), { text: "main done" }])}`,
      { SSH_AUTH_SOCK: socketPath, DBUS_SESSION_BUS_ADDRESS: `unix:path=${socketPath}` },
    );
    expect(run.code, run.stderr).toBe(0);
    const output = await childBashOutput(suite.fake, "SECRETS-PROBE");
    expect(output).not.toContain(SECRET);
    for (const attempt of ["credentials", "gh", "history", "other-task", "transcript"])
      expect(output, attempt).toMatch(new RegExp(`${attempt}:[1-9]`));
    expect(output).toMatch(/sock:unset/);
    expect(output).toMatch(/agent-refused:/);
    expect(output).not.toContain("AGENT-ANSWERED");
    // Its own task folder is the only one it sees.
    expect(output).toMatch(/tasks:\s*1/);
    expect(mainToolResults(suite.fake).find((text) => text.includes("SECRETS-DONE"))).toContain(
      "[subagent sandbox: read-only]",
    );
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP)("bwrap from the system's folders only", () => {
  it("a fake bwrap first on PATH (as npm run puts node_modules/.bin there) is not used: the child is really sandboxed and says so", async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: read-only" });
    const bin = join(env.workDir, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    const fake = join(bin, "bwrap");
    // Runs the command with no sandbox at all, and leaves a mark that it did.
    writeFileSync(
      fake,
      `#!/bin/sh\ntouch ${join(marks.dir, "fake-bwrap")}\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n`,
    );
    chmodSync(fake, 0o755);
    const inside = join(env.workDir, "written.txt");
    const command = `touch ${inside}; echo "inside:$?"`;
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("FAKE-BWRAP", command, "FAKE-BWRAP-DONE") }), { text: "main done" }])}`,
      {
        PATH: `${bin}:${env.env.PATH ?? ""}`,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await childBashOutput(suite.fake, "FAKE-BWRAP")).toMatch(/inside:1/);
    expect(existsSync(inside)).toBe(false);
    expect(readdirSync(marks.dir)).toEqual([]);
    expect(mainToolResults(suite.fake).find((text) => text.includes("FAKE-BWRAP-DONE"))).toContain(
      "[subagent sandbox: read-only]",
    );
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP)("two pi sessions in one folder", () => {
  it("the session whose child made the .claude mount point ends first, and keeps it while the other session's workspace-write child uses it, so that child cannot create .claude for real", async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: workspace-write" });
    const protectedDir = join(env.workDir, ".claude");
    const planted = join(protectedDir, "commands", "planted.md");
    expect(existsSync(protectedDir)).toBe(false);
    /** A child that says it started, then waits for its go file (both in the working folder it shares with the test). */
    const waitFor = (name: string) =>
      `touch ${join(env.workDir, `${name}-started`)}; while [ ! -e ${join(env.workDir, `${name}-go`)} ]; do sleep 0.1; done`;
    // The first session's child makes the mount point; the second's then sees it as an empty folder.
    const first = printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("FIRST-PROBE", `${waitFor("first")}; echo first`, "FIRST-DONE") }), { text: "main done" }])}`,
    );
    await waitForFile(join(env.workDir, "first-started"), 90_000);
    const plant = `${waitFor("second")}; mkdir -p ${join(protectedDir, "commands")} && echo planted > ${planted}; echo "plant:$?"`;
    const second = printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("SECOND-PROBE", plant, "SECOND-DONE") }), { text: "main done" }])}`,
    );
    await waitForFile(join(env.workDir, "second-started"), 90_000);
    writeFileSync(join(env.workDir, "first-go"), "");
    const firstRun = await first;
    expect(firstRun.code, firstRun.stderr).toBe(0);
    expect(mainToolResults(suite.fake).some((text) => text.includes("FIRST-DONE"))).toBe(true);
    // Still the second child's mount point: an empty folder on the host.
    expect(readdirSync(protectedDir)).toEqual([]);
    writeFileSync(join(env.workDir, "second-go"), "");
    const secondRun = await second;
    expect(secondRun.code, secondRun.stderr).toBe(0);
    expect(await childBashOutput(suite.fake, "SECOND-PROBE")).toMatch(/plant:1/);
    expect(existsSync(planted)).toBe(false);
    // The last child gone, the mount point is removed.
    expect(existsSync(protectedDir)).toBe(false);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP)("a sandboxed child's processes and its own dispatch", () => {
  it("a sandboxed child cannot signal a process of the person's started outside it: kill -TERM fails and the process lives on", async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: workspace-write" });
    // The person's process: a sleep in a group of its own, started by the test, not by pi.
    const victim = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    let victimExited = false;
    victim.once("exit", () => (victimExited = true));
    const pid = victim.pid!;
    try {
      const command = `kill -TERM ${pid}; echo "kill:$?"; kill -TERM -${pid}; echo "group:$?"`;
      const run = await printPi(
        `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: bashTask("SIGNAL-PROBE", command, "SIGNAL-DONE") }), { text: "main done" }])}`,
      );
      expect(run.code, run.stderr).toBe(0);
      const output = await childBashOutput(suite.fake, "SIGNAL-PROBE");
      expect(output).toMatch(/kill:1/);
      expect(output).toMatch(/group:1/);
      expect(output).toMatch(/No such process/);
      // Still running (a process the test reaps would have reported its exit by now).
      expect(victimExited).toBe(false);
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(mainToolResults(suite.fake).find((text) => text.includes("SIGNAL-DONE"))).toContain(
        "[subagent sandbox: workspace-write]",
      );
      expect(await waitForNoProcesses(env.marker)).toEqual([]);
    } finally {
      if (!victimExited) process.kill(-pid, "SIGKILL");
    }
  });

  it("a sandboxed child's own dispatch (nesting limit 2) is refused in one sentence saying why, and nothing starts", async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: read-only" });
    const nested = { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: "NESTED-NEVER-STARTS" } }] };
    const task = `NEST-PROBE ${fakeDirective([nested, { text: "NEST-DONE" }])}`;
    const run = await printPi(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task }), { text: "main done" }])}`,
      { PI_SUBAGENT_MAX_DEPTH: "2" },
    );
    expect(run.code, run.stderr).toBe(0);
    const refusal = await childBashOutput(suite.fake, "NEST-PROBE");
    expect(refusal).toContain(
      "Subagent tool is blocked: nested subagents cannot start from a sandboxed subagent (this one runs with sandbox: read-only), so finish the task with your own tools.",
    );
    expect(refusal).not.toContain("bwrap");
    // No grandchild ever asked the model, and the child's own run went on to its answer.
    const grandchildAsked = suite.fake.requests.some((req) =>
      req.messages.some((m) => m.role === "user" && messageText(m).startsWith("Task: NESTED-NEVER-STARTS")),
    );
    expect(grandchildAsked).toBe(false);
    expect(mainToolResults(suite.fake).find((text) => text.includes("NEST-DONE"))).toContain(
      "[subagent sandbox: read-only]",
    );
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});
