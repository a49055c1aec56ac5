/**
 * `isolation: "worktree"` with the real pi against the scripted fake model: a child that writes a file works
 * in its own git worktree (the person's working tree stays untouched, the branch holds the change, the result
 * names branch and file); a child that changes nothing leaves no worktree and no branch; a folder outside git
 * is refused before anything runs; two parallel children editing one file each end on their own branch; a
 * resumed worktree task continues on its branch; in the TUI the envelope reports the worktree.
 */
import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";
import { git, gitProject as gitProjectOf } from "../harness/git-project.ts";
import { PiRpc } from "../harness/rpc.ts";

const suite = useE2eSuite();

/** Makes the test's work folder a git project with one commit (the worker agent file and a README). */
const gitProject = () => gitProjectOf(suite.env);

function delegatingPrompt(calls: Array<Record<string, unknown>>): string {
  const action: FakeAction = { toolCalls: calls.map((args) => ({ name: "subagent", arguments: args })) };
  return `Please delegate. ${fakeDirective([action])}`;
}

function childTask(text: string, actions: FakeAction | FakeAction[]): string {
  return `${text} ${fakeDirective(actions)}`;
}

function writeThenAnswer(path: string, content: string, answer: string): FakeAction[] {
  return [{ toolCalls: [{ name: "write", arguments: { path, content } }] }, { text: answer }];
}

function printPi(prompt: string) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 120_000,
  });
}

const sessionIdsIn = (text: string) => [...text.matchAll(/\[subagent session: ([0-9a-f-]{36})\]/g)].map((m) => m[1]!);

function subagentBranches(dir: string): string[] {
  return git(dir, "branch", "--list", "subagent/*", "--format=%(refname:short)").split("\n").filter(Boolean).sort();
}

function worktreeCount(dir: string): number {
  return git(dir, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree ")).length;
}

describe("worktree isolation in print mode", () => {
  it("runs the child in a worktree: the working tree stays untouched, the branch holds the new file, the result names both", {
    tags: ["slow"],
  }, async () => {
    suite.newEnv();
    const dir = gitProject();
    const result = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Add hello.", writeThenAnswer("hello.txt", "HELLO FROM CHILD\n", "WROTE-IT")),
        },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("WROTE-IT");
    const [id] = sessionIdsIn(result.stdout);
    expect(id).toBeDefined();
    const branch = `subagent/${id}`;
    const path = join(suite.env.agentDir, "subagent-worktrees", id!);
    expect(result.stdout).toContain(`Worktree: kept at ${path} on branch ${branch}`);
    expect(result.stdout).toMatch(/hello\.txt \| 1 \+/);
    expect(result.stdout).toContain(
      `Merge: /subagent-worktrees merge ${id} or action "merge" (both check the branch first), or by hand: git merge ${branch}`,
    );

    // The person's working tree and branch are untouched.
    expect(existsSync(join(dir, "hello.txt"))).toBe(false);
    expect(git(dir, "status", "--porcelain")).toBe("");
    expect(git(dir, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("main");
    expect(git(dir, "rev-list", "--count", "main").trim()).toBe("1");
    // The branch holds the change, committed; the worktree is kept and clean.
    expect(git(dir, "show", `${branch}:hello.txt`)).toBe("HELLO FROM CHILD\n");
    expect(git(dir, "log", "-1", "--format=%s", branch)).toMatch(/^subagent worker: Add hello\./);
    expect(git(path, "status", "--porcelain")).toBe("");
    // The child really ran there: pi ran its session in the worktree.
    const child = suite.fake.requests.find(isWorkerRequest)!;
    expect(child.system).toContain(path);

    const record = JSON.parse(
      readFileSync(join(suite.env.agentDir, "subagent-sessions", id!, "record.json"), "utf8"),
    ) as Record<string, any>;
    expect(record.worktree).toMatchObject({
      kept: true,
      branch,
      path,
      files: [{ status: "A", path: "hello.txt" }],
      filesTotal: 1,
    });

    // /subagent-result shows the same.
    const shown = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-result ${id}`], {
      env: suite.env.env,
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(shown.stdout).toContain(`Worktree: kept at ${path} on branch ${branch}`);
    expect(shown.stdout).toMatch(/hello\.txt \| 1 \+/);

    // /subagent-worktrees lists it, and removes it (folder and branch) by a prefix of its id.
    const listed = await runPi(["-e", EXTENSION_ENTRY, "-p", "/subagent-worktrees"], {
      env: suite.env.env,
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(listed.code, listed.stderr).toBe(0);
    const line = listed.stdout.trim();
    expect(line.split("\n")).toHaveLength(1);
    expect(line.startsWith(`${id}  ${branch}  worker · succeeded · 1 file changed · Add hello.`)).toBe(true);
    expect(line.endsWith(`  ${path}`)).toBe(true);
    // An RPC client gets the same list as a notice, and its event stream stays JSON.
    const rpc = PiRpc.start(["-e", EXTENSION_ENTRY], { env: suite.env.env, cwd: dir });
    try {
      rpc.send({ id: "w1", type: "prompt", message: "/subagent-worktrees" });
      const notice = (await rpc.waitForEvent(
        (e) => e.type === "extension_ui_request" && e.method === "notify",
        60_000,
        "the worktree list notice",
      )) as { message: string };
      expect(notice.message).toBe(line);
      expect(rpc.strayLines).toEqual([]);
    } finally {
      await rpc.stop();
    }
    const removed = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-worktrees remove ${id!.slice(0, 13)}`], {
      env: suite.env.env,
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(`Removed worktree ${path} and deleted branch ${branch}.`);
    expect(existsSync(path)).toBe(false);
    expect(subagentBranches(dir)).toEqual([]);
    const empty = await runPi(["-e", EXTENSION_ENTRY, "-p", "/subagent-worktrees"], {
      env: suite.env.env,
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(empty.stdout.trim()).toBe("No subagent worktrees in this repository.");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("removes the worktree and branch of a child that changed nothing (isolation from the agent's frontmatter)", async () => {
    suite.newEnv({ workerFrontmatter: "isolation: worktree" });
    const dir = gitProject();
    const result = await printPi(
      delegatingPrompt([{ agent: "worker", task: childTask("Just look.", { text: "NOTHING-CHANGED" }) }]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("NOTHING-CHANGED");
    const [id] = sessionIdsIn(result.stdout);
    const child = suite.fake.requests.find(isWorkerRequest)!;
    // It did run in a worktree...
    expect(child.system).toContain(join(suite.env.agentDir, "subagent-worktrees", id!));
    // ...which is gone, with its branch.
    expect(result.stdout).toContain("Worktree: removed (the subagent changed nothing");
    expect(existsSync(join(suite.env.agentDir, "subagent-worktrees", id!))).toBe(false);
    expect(subagentBranches(dir)).toEqual([]);
    expect(worktreeCount(dir)).toBe(1);
    expect(git(dir, "status", "--porcelain")).toBe("");
  });

  it("refuses in a folder outside git, before anything runs", async () => {
    suite.newEnv();
    const result = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Add hello.", writeThenAnswer("hello.txt", "x", "WROTE")),
        },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `Cannot run the subagent in a worktree: ${suite.env.workDir} is not inside a git repository`,
    );
    expect(result.stdout).toContain("Nothing was started.");
    expect(suite.fake.requests.filter(isWorkerRequest)).toEqual([]);
    expect(existsSync(join(suite.env.workDir, "hello.txt"))).toBe(false);
    const sessions = join(suite.env.agentDir, "subagent-sessions");
    expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);

    const listed = await runPi(["-e", EXTENSION_ENTRY, "-p", "/subagent-worktrees"], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 60_000,
    });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(
      `Not in a git repository (${suite.env.workDir}): there are no subagent worktrees to list here.`,
    );
  });

  it("runs two parallel children editing the same file, each to its own branch", async () => {
    suite.newEnv();
    const dir = gitProject();
    const result = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Edit A.", writeThenAnswer("README.md", "edited by A\n", "DONE-A")),
        },
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Edit B.", writeThenAnswer("README.md", "edited by B\n", "DONE-B")),
        },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("DONE-A");
    expect(result.stdout).toContain("DONE-B");
    const ids = sessionIdsIn(result.stdout);
    expect(ids).toHaveLength(2);
    expect(subagentBranches(dir)).toEqual(ids.map((id) => `subagent/${id}`).sort());
    const contents = ids.map((id) => git(dir, "show", `subagent/${id}:README.md`)).sort();
    expect(contents).toEqual(["edited by A\n", "edited by B\n"]);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("original\n");
    expect(git(dir, "status", "--porcelain")).toBe("");
    expect(worktreeCount(dir)).toBe(3);
  });

  it("keeps what a child wrote before it timed out, committed on its branch", { tags: ["slow"] }, async () => {
    suite.newEnv();
    const dir = gitProject();
    const started = join(suite.env.root, "sleep-started");
    const actions: FakeAction[] = [
      { toolCalls: [{ name: "write", arguments: { path: "partial.txt", content: "half done\n" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 300` } }] },
    ];
    const result = await runPi(
      [
        "-e",
        EXTENSION_ENTRY,
        "-p",
        delegatingPrompt([{ agent: "worker", isolation: "worktree", task: childTask("Slow.", actions) }]),
      ],
      {
        env: suite.env.env,
        cwd: dir,
        // The quiet time counts from the child's first output: the sleep, not the child's start, is what times out.
        extraEnv: { PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: "4000" },
        timeoutMs: 120_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(started)).toBe(true);
    expect(result.stdout).toContain("Subagent worker timed out.");
    const [id] = sessionIdsIn(result.stdout);
    expect(result.stdout).toContain(`on branch subagent/${id}`);
    expect(git(dir, "show", `subagent/${id}:partial.txt`)).toBe("half done\n");
    expect(existsSync(join(dir, "partial.txt"))).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("resumes a worktree task in its kept worktree, adding to its branch", { tags: ["slow"] }, async () => {
    suite.newEnv();
    const dir = gitProject();
    const first = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("First.", writeThenAnswer("one.txt", "1\n", "FIRST")),
        },
      ]),
    );
    expect(first.code, first.stderr).toBe(0);
    const [id] = sessionIdsIn(first.stdout);
    const second = await printPi(
      delegatingPrompt([
        { agent: "worker", sessionId: id, task: childTask("Second.", writeThenAnswer("two.txt", "2\n", "SECOND")) },
      ]),
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("SECOND");
    const branch = `subagent/${id}`;
    expect(git(dir, "ls-tree", "--name-only", branch).split("\n").filter(Boolean).sort()).toEqual([
      ".pi",
      "README.md",
      "one.txt",
      "two.txt",
    ]);
    expect(git(dir, "rev-list", "--count", `main..${branch}`).trim()).toBe("2");
    expect(second.stdout).toMatch(/2 files changed/);
    expect(existsSync(join(dir, "two.txt"))).toBe(false);
  });
});

function bashThenAnswer(command: string, answer: string): FakeAction[] {
  return [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: answer }];
}

function readRecordOf(id: string): Record<string, any> {
  return JSON.parse(readFileSync(join(suite.env.agentDir, "subagent-sessions", id, "record.json"), "utf8")) as Record<
    string,
    any
  >;
}

describe("worktree isolation: what the child does to git costs no work and writes nowhere else", () => {
  it("commits nothing when the child switched its worktree to one of the person's branches or detached HEAD, and keeps everything", {
    tags: ["slow"],
  }, async () => {
    suite.newEnv();
    const dir = gitProject();
    git(dir, "branch", "feature");
    const mainTip = git(dir, "rev-parse", "main").trim();
    const result = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask(
            "Switch.",
            bashThenAnswer("git checkout -q feature && echo mine > stray.txt && echo more >> README.md", "SWITCHED"),
          ),
        },
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Detach.", bashThenAnswer("git checkout -q --detach && echo loose > loose.txt", "DETACHED")),
        },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("SWITCHED");
    expect(result.stdout).toContain("DETACHED");
    const [switched, detached] = sessionIdsIn(result.stdout);
    const switchedPath = join(suite.env.agentDir, "subagent-worktrees", switched!);
    const detachedPath = join(suite.env.agentDir, "subagent-worktrees", detached!);

    // The person's branches did not move; nothing was staged or committed anywhere.
    expect(git(dir, "rev-parse", "feature").trim()).toBe(mainTip);
    expect(git(dir, "rev-parse", "main").trim()).toBe(mainTip);
    expect(git(dir, "rev-parse", `subagent/${switched}`).trim()).toBe(mainTip);
    expect(git(dir, "rev-parse", `subagent/${detached}`).trim()).toBe(mainTip);
    expect(git(dir, "status", "--porcelain")).toBe("");
    // The child's edits are still in its worktrees, uncommitted, on the HEAD it chose.
    expect(git(switchedPath, "status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([
      " M README.md",
      "?? stray.txt",
    ]);
    expect(git(switchedPath, "symbolic-ref", "HEAD").trim()).toBe("refs/heads/feature");
    expect(readFileSync(join(detachedPath, "loose.txt"), "utf8")).toBe("loose\n");

    // The result says what happened, truthfully.
    expect(result.stdout).toContain(
      `Worktree: kept as it is at ${switchedPath} (2 files left uncommitted); not merged into your branch; the subagent left the worktree on branch feature, not on subagent/${switched}; nothing was committed`,
    );
    expect(result.stdout).toContain(
      `Worktree: kept as it is at ${detachedPath} (1 file left uncommitted); not merged into your branch; the subagent left the worktree on a detached HEAD at ${mainTip.slice(0, 12)}, not on subagent/${detached}; nothing was committed`,
    );
    expect(result.stdout).not.toMatch(/0 files changed/);
    expect(readRecordOf(switched!).worktree).toMatchObject({
      kept: true,
      leftAsIs: true,
      leftOn: "branch feature",
      uncommitted: 2,
    });

    // /subagent-worktrees names the branch the child switched to; removing it deletes only the task's branch.
    const listed = await runPi(["-e", EXTENSION_ENTRY, "-p", "/subagent-worktrees"], {
      env: suite.env.env,
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(
      `${switched}  (on branch feature, not subagent/${switched})  worker · succeeded · 2 files left uncommitted · Switch.`,
    );
    expect(listed.stdout).toContain(
      `${detached}  (on a detached HEAD at ${mainTip.slice(0, 12)}, not subagent/${detached})  worker · succeeded`,
    );
    const removed = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-worktrees remove ${switched}`], {
      env: suite.env.env,
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(`Removed worktree ${switchedPath} and deleted branch subagent/${switched}.`);
    expect(git(dir, "rev-parse", "feature").trim()).toBe(mainTip);
    expect(subagentBranches(dir)).toEqual([`subagent/${detached}`]);
  });

  it("keeps a worktree whose only change is files inside an uninitialised submodule folder", async () => {
    suite.newEnv();
    const dir = gitProject();
    git(dir, "update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},vendor/lib`);
    git(
      dir,
      "-c",
      "user.name=Person",
      "-c",
      "user.email=person@example.invalid",
      "commit",
      "--quiet",
      "-m",
      "submodule",
    );
    const result = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Vendor.", bashThenAnswer("echo precious > vendor/lib/notes.txt", "VENDORED")),
        },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("VENDORED");
    const [id] = sessionIdsIn(result.stdout);
    const path = join(suite.env.agentDir, "subagent-worktrees", id!);
    expect(readFileSync(join(path, "vendor", "lib", "notes.txt"), "utf8")).toBe("precious\n");
    expect(subagentBranches(dir)).toEqual([`subagent/${id}`]);
    expect(result.stdout).toContain(`Worktree: kept at ${path} on branch subagent/${id} (commit `);
    expect(result.stdout).toContain("; files git does not track are kept in submodule folders: vendor/lib");
  });

  it("says how many files are left uncommitted when git add fails, and keeps them", async () => {
    suite.newEnv();
    gitProject();
    // An empty nested repository makes `git add -A` fail ("does not have a commit checked out").
    const result = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Nest.", bashThenAnswer("mkdir nested && git -C nested init -q && echo x > a.txt", "NESTED")),
        },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    const [id] = sessionIdsIn(result.stdout);
    const path = join(suite.env.agentDir, "subagent-worktrees", id!);
    expect(result.stdout).toMatch(
      new RegExp(
        `Worktree: kept at \\S+ on branch subagent/${id} \\(commit [0-9a-f]{12}, 0 files changed, 2 files left uncommitted\\); not merged into your branch; git add failed: `,
      ),
    );
    expect(result.stdout).toContain(`Uncommitted: 2 files left uncommitted in the worktree (git -C ${path} status)`);
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("x\n");
    expect(readRecordOf(id!).worktree).toMatchObject({ kept: true, uncommitted: 2 });
  });

  it("runs none of the repository's hooks when it makes and commits the worktree", async () => {
    suite.newEnv();
    const dir = gitProject();
    const ran = join(suite.env.root, "hooks-ran");
    for (const hook of ["post-checkout", "prepare-commit-msg", "commit-msg", "pre-commit", "post-commit"]) {
      suite.env.writeWorkFile(`.git/hooks/${hook}`, `#!/bin/sh\necho ${hook} >> ${ran}\n`);
      chmodSync(join(dir, ".git", "hooks", hook), 0o755);
    }
    const result = await printPi(
      delegatingPrompt([
        {
          agent: "worker",
          isolation: "worktree",
          task: childTask("Add hello.", writeThenAnswer("hello.txt", "HI\n", "WROTE-IT")),
        },
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    const [id] = sessionIdsIn(result.stdout);
    expect(git(dir, "show", `subagent/${id}:hello.txt`)).toBe("HI\n");
    expect(git(dir, "log", "-1", "--format=%s", `subagent/${id}`)).toMatch(/^subagent worker: Add hello\./);
    expect(existsSync(ran) ? readFileSync(ran, "utf8") : "").toBe("");
  });
});

const RESULT_TITLE =
  /^## \[subagent-result\] worker (succeeded|failed|timed out|cancelled) \(taskId: ([0-9a-f-]{36})\)/;
const isParent = (req: FakeRequest) => !isWorkerRequest(req);
const resultMessages = (req: FakeRequest) =>
  req.messages.filter((m) => m.role === "user" && RESULT_TITLE.test(messageText(m))).map(messageText);

describe.skipIf(skipTuiTests())("worktree isolation in the TUI", () => {
  it("delivers an envelope that names the branch, the worktree and the changed file", { tags: ["tui"] }, async () => {
    suite.newEnv();
    const dir = gitProject();
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
      reply: { text: "ok" },
    });
    const t = await suite.startTui();
    const first: FakeAction = {
      toolCalls: [
        {
          name: "subagent",
          arguments: {
            agent: "worker",
            isolation: "worktree",
            task: childTask("Add hello.", writeThenAnswer("hello.txt", "HI\n", "WROTE-IT")),
          },
        },
      ],
    };
    await t.submit(`Delegate please. ${fakeDirective([first, { text: "Dispatched, waiting." }])}`);
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      120_000,
      "the result",
    );
    const envelope = resultMessages(delivered)[0]!;
    const id = RESULT_TITLE.exec(envelope)![2]!;
    const branch = `subagent/${id}`;
    const receipt = delivered.messages.filter((m) => m.role === "tool").map(messageText)[0];
    expect(receipt).toBe(
      `Dispatched worker. taskId: ${id} (in git worktree ${join(suite.env.agentDir, "subagent-worktrees", id)} on branch ${branch})`,
    );
    expect(envelope).toContain("- Status: succeeded");
    expect(envelope).toContain(
      `- Worktree: kept at ${join(suite.env.agentDir, "subagent-worktrees", id)} on branch ${branch}`,
    );
    expect(envelope).toMatch(/hello\.txt \| 1 \+/);
    expect(envelope.split("---\n")[1]).toBe("WROTE-IT");
    expect(git(dir, "show", `${branch}:hello.txt`)).toBe("HI\n");
    expect(existsSync(join(dir, "hello.txt"))).toBe(false);

    // /subagent-worktrees: the picker lists it; Enter and Yes remove the worktree and its branch.
    const path = join(suite.env.agentDir, "subagent-worktrees", id);
    await t.submit("/subagent-worktrees");
    await t.waitForText("Subagent worktrees (Enter: remove one)", 30_000);
    await t.waitForText(id.slice(0, 30), 10_000);
    await t.press("Enter");
    await t.waitForText("Remove the subagent worktree?", 10_000);
    await t.press("Enter");
    // The notice may wrap at the pane's width: compare without white space.
    await t.waitForScreen(
      (screen) => screen.replace(/\s+/g, "").includes(`deletedbranch${branch}.`),
      30_000,
      "the removal notice",
    );
    expect(existsSync(path)).toBe(false);
    expect(subagentBranches(dir)).toEqual([]);
    expect(await t.quit()).toBe(0);
  });

  it("keeps and commits what a cancelled child wrote", { tags: ["tui"] }, async () => {
    suite.newEnv();
    const dir = gitProject();
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
      reply: { text: "ok" },
    });
    const t = await suite.startTui();
    const started = join(suite.env.root, "sleep-started");
    const actions: FakeAction[] = [
      { toolCalls: [{ name: "write", arguments: { path: "partial.txt", content: "half\n" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 300` } }] },
    ];
    const first: FakeAction = {
      toolCalls: [
        { name: "subagent", arguments: { agent: "worker", isolation: "worktree", task: childTask("Slow.", actions) } },
      ],
    };
    await t.submit(`Delegate please. ${fakeDirective([first, { text: "Dispatched, waiting." }])}`);
    await waitForFile(started, 90_000);
    await t.waitForText("Dispatched, waiting.", 30_000);
    await t.submit("/subagent-cancel-all");
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultMessages(r).length === 1,
      90_000,
      "the cancelled result",
    );
    const envelope = resultMessages(delivered)[0]!;
    const id = RESULT_TITLE.exec(envelope)![2]!;
    expect(envelope).toContain(`## [subagent-result] worker cancelled (taskId: ${id})`);
    expect(envelope).toContain(`on branch subagent/${id}`);
    expect(envelope).toMatch(/partial\.txt \| 1 \+/);
    expect(git(dir, "show", `subagent/${id}:partial.txt`)).toBe("half\n");
    expect(existsSync(join(dir, "partial.txt"))).toBe(false);
    expect(await t.quit()).toBe(0);
  });
});
