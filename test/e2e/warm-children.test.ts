/**
 * Warm children (issue 40) with the real pi and the fake model: after a delegation ends, pi 1.x starts the next child
 * of its shape ahead, and the next call like it takes that child. The second of two delegations is served warm (its
 * record says so) and sends the model exactly what the first, cold one sent, byte for byte once task ids and times are
 * set aside; a sandboxed warm child is as confined as a cold one; `kill -9` of pi leaves no warm child, and the next
 * start removes its folder; `$warmChildren: 0` and `PI_SUBAGENT_WARM_CHILDREN=0` start none; a child past its idle time
 * is ended; the TUI's /subagent-usage shows the waiting child and its memory, and /reload ends it; a warm child's
 * question from pi's own permission-gate example reaches the person, and Yes runs the command. pi 0.73.1 has no
 * warm children: the contract test shows both delegations cold there.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, PI, runPi, withPermissionGate, type PiEnv } from "../harness/pi-env.ts";
import { processesWithMarker, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, type TmuxPi } from "../harness/tmux.ts";
import { isTaskId } from "../../src/shared/nesting.ts";

const suite = useE2eSuite();
const isMain = (req: FakeRequest) => !isWorkerRequest(req);

function delegate(task: string, extra: Record<string, unknown> = {}): FakeAction {
  return { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task, ...extra } }] };
}

function sessionsDir(env: PiEnv): string {
  return join(env.agentDir, "subagent-sessions");
}

/** The task folders of the agent dir, and which of them hold a waiting child's claim. */
function taskFolders(env: PiEnv): { all: string[]; warm: string[] } {
  const dir = sessionsDir(env);
  const all = existsSync(dir) ? readdirSync(dir).filter(isTaskId) : [];
  return { all, warm: all.filter((id) => existsSync(join(dir, id, "warm.lock"))) };
}

function recordOf(
  env: PiEnv,
  taskId: string,
): { task: string; dispatchedAt: number; origin?: { warm?: boolean; sandbox?: string } } {
  return JSON.parse(readFileSync(join(sessionsDir(env), taskId, "record.json"), "utf8"));
}

/** The records of the run's delegations, in the order they were dispatched. */
function delegationRecords(env: PiEnv) {
  return taskFolders(env)
    .all.filter((id) => existsSync(join(sessionsDir(env), id, "record.json")))
    .map((id) => recordOf(env, id))
    .sort((a, b) => a.dispatchedAt - b.dispatchedAt);
}

/** Waits (looking every 50 ms: the folder has no event) until `check` holds, or fails naming `what`. */
async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A child pi of this test's (its depth variable says so), other than the main pi's own processes. */
function childPis(env: PiEnv): number[] {
  return processesWithMarker(env.marker)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/environ`, "latin1").split("\0").includes("PI_SUBAGENT_DEPTH=1");
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}

/** A request's body with what differs from task to task set aside: task ids, times, the task's own words. */
function comparable(req: FakeRequest): string {
  return req.body
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>");
}

/** The main agent's request that carries the first delegation's result. */
const isFirstResult = (req: FakeRequest) =>
  isMain(req) && req.lastRole === "tool" && req.messages.filter((m) => m.role === "tool").length === 1;

/**
 * Holds the main agent's next answer after the first delegation's result until the warm child of its shape is
 * waiting (pi 1.x), so the second delegation meets it ready, as it would after a real model's thinking time.
 */
function holdUntilWarm(env: PiEnv, then: FakeAction): void {
  suite.fake.on({
    when: isFirstResult,
    reply: async () => {
      if (PI.line === "1") await waitUntil(() => taskFolders(env).warm.length === 1, 60_000, "a warm child");
      return then;
    },
  });
}

/**
 * The main model "thinks" 1.5 s after the first result (a warm child would be started meanwhile, in milliseconds),
 * looking for a child pi all along, then answers `then`. What it saw: the child pis, and `look()` at the end.
 */
function thinkAfterFirstResult(env: PiEnv, then: FakeAction, look: () => boolean = () => false) {
  const meanwhile = { childPis: [] as number[], saw: false };
  suite.fake.on({
    when: isFirstResult,
    reply: async () => {
      const until = Date.now() + 1500;
      while (Date.now() < until && meanwhile.childPis.length === 0) {
        meanwhile.childPis = childPis(env);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      meanwhile.saw = look();
      return then;
    },
  });
  return meanwhile;
}

/** `pi -p` whose model delegates `first`; what it does after the first result is up to the test's rule. */
function delegateTwice(env: PiEnv, first: string, extraEnv: NodeJS.ProcessEnv = {}) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", `Twice. ${fakeDirective([delegate(first)])}`], {
    env: env.env,
    cwd: env.workDir,
    timeoutMs: 120_000,
    extraEnv,
  });
}

describe("warm children", () => {
  it("serve the second of two delegations, which sends the model what the first, cold one sent; pi 0.73.1 starts both cold", {
    tags: ["contract"],
    timeout: 180_000,
  }, async () => {
    const env = suite.newEnv({ warmChildren: true });
    holdUntilWarm(env, delegate("the same job"));
    const run = await delegateTwice(env, "the same job");
    expect(run.code, run.stderr).toBe(0);
    const records = delegationRecords(env);
    expect(records).toHaveLength(2);
    expect(records[0]!.origin?.warm).toBeUndefined();
    expect(records[1]!.origin?.warm).toBe(PI.line === "1" ? true : undefined);
    const [cold, warm] = suite.fake.requests.filter(isWorkerRequest);
    expect(warm, "the second child's request").toBeDefined();
    expect(comparable(warm!)).toBe(comparable(cold!));
    expect(warm!.body).toContain("Task: the same job");
    // The child started ahead after the second delegation ended with pi: nothing of it is left.
    expect(await waitForNoProcesses(env.marker, 10_000)).toEqual([]);
    expect(taskFolders(env).warm).toEqual([]);
    expect(taskFolders(env).all).toHaveLength(2);
  });

  it("a sandboxed warm child cannot write outside its project", async () => {
    const env = suite.newEnv({ workerFrontmatter: "sandbox: workspace-write", warmChildren: true });
    // A folder outside the private /tmp a sandboxed child gets, where the person can write: the child must not.
    const outsideDir = mkdtempSync(join("/var/tmp", "pi-subagent-warm-outside-"));
    onTestFinished(() => rmSync(outsideDir, { recursive: true, force: true }));
    const outside = join(outsideDir, "outside.txt");
    const second = `Write outside. ${fakeDirective([
      {
        toolCalls: [
          {
            name: "bash",
            arguments: { command: `echo x > ${outside}; echo "outside:$?"; echo in > inside.txt; echo "inside:$?"` },
          },
        ],
      },
      { text: "WRITE-DONE" },
    ])}`;
    holdUntilWarm(env, delegate(second));
    const run = await delegateTwice(env, "first job");
    expect(run.code, run.stderr).toBe(0);
    const records = delegationRecords(env);
    expect(records[1]!.origin).toMatchObject({ warm: true, sandbox: "workspace-write" });
    const toolResult = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastRole === "tool" && req.lastText.includes("outside:"),
    );
    expect(toolResult?.lastText).toMatch(/outside:[1-9]/);
    expect(toolResult?.lastText).toMatch(/inside:0/);
    expect(existsSync(outside)).toBe(false);
    expect(readFileSync(join(env.workDir, "inside.txt"), "utf8")).toBe("in\n");
    // The child started ahead after the second delegation was ended at pi's exit: its mount points went with it.
    for (const name of ["AGENTS.md", "CLAUDE.md", ".agents", ".claude"])
      expect(existsSync(join(env.workDir, name)), name).toBe(false);
    expect(readdirSync(join(env.workDir, ".pi"))).toEqual(["agents"]);
    expect(await waitForNoProcesses(env.marker, 10_000)).toEqual([]);
  }, 180_000);

  it("kill -9 of pi leaves no warm child, and the next start removes its folder", async () => {
    const env = suite.newEnv({ warmChildren: true });
    suite.fake.on({
      when: (req) => isMain(req) && req.lastRole === "tool",
      reply: { delayMs: 300_000, text: "never" },
    });
    let mainPid = 0;
    const run = runPi(["-e", EXTENSION_ENTRY, "-p", `Once. ${fakeDirective([delegate("first job")])}`], {
      env: env.env,
      cwd: env.workDir,
      timeoutMs: 120_000,
      onSpawn: (pid) => (mainPid = pid),
    });
    await waitUntil(() => taskFolders(env).warm.length === 1 && childPis(env).length === 1, 60_000, "a warm child");
    const [warmId] = taskFolders(env).warm;
    process.kill(mainPid, "SIGKILL");
    expect((await run).signal).toBe("SIGKILL");
    // It watches its parent, as every child does.
    expect(await waitForNoProcesses(env.marker, 15_000)).toEqual([]);
    expect(existsSync(join(sessionsDir(env), warmId!))).toBe(true);
    suite.fake.reset();
    const next = await runPi(["-e", EXTENSION_ENTRY, "-p", "hello"], {
      env: env.env,
      cwd: env.workDir,
      timeoutMs: 120_000,
    });
    expect(next.code, next.stderr).toBe(0);
    expect(existsSync(join(sessionsDir(env), warmId!))).toBe(false);
    expect(taskFolders(env).all).toHaveLength(1);
  }, 180_000);

  it.each([
    { how: '"$warmChildren": 0 in the user file', file: true },
    { how: "PI_SUBAGENT_WARM_CHILDREN=0", file: false },
  ])(
    "$how starts no warm child",
    async ({ file }) => {
      const env = suite.newEnv({ warmChildren: true });
      if (file) writeFileSync(join(env.agentDir, "subagent-isolation.json"), JSON.stringify({ $warmChildren: 0 }));
      const meanwhile = thinkAfterFirstResult(env, delegate("second job"));
      const run = await delegateTwice(env, "first job", file ? {} : { PI_SUBAGENT_WARM_CHILDREN: "0" });
      expect(run.code, run.stderr).toBe(0);
      expect(meanwhile.childPis).toEqual([]);
      expect(delegationRecords(env).map((record) => record.origin?.warm)).toEqual([undefined, undefined]);
      expect(taskFolders(env).all).toHaveLength(2);
    },
    180_000,
  );

  it("starts no child ahead after a child wrote a file pi loads at its start (a project extension)", async () => {
    const env = suite.newEnv({ warmChildren: true });
    const mark = join(env.root, "planted-ran");
    const planted = `export default function () { require("node:fs").writeFileSync(${JSON.stringify(mark)}, "ran"); }`;
    const plant = `Plant. ${fakeDirective([
      {
        toolCalls: [
          {
            name: "bash",
            arguments: { command: `mkdir -p .pi/extensions && printf '%s' '${planted}' > .pi/extensions/planted.ts` },
          },
        ],
      },
      { text: "PLANTED" },
    ])}`;
    const meanwhile = thinkAfterFirstResult(env, delegate("second job"), () => existsSync(mark));
    const run = await delegateTwice(env, plant);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(env.workDir, ".pi", "extensions", "planted.ts"))).toBe(true);
    expect(meanwhile.childPis).toEqual([]);
    expect(meanwhile.saw).toBe(false);
    expect(delegationRecords(env).map((record) => record.origin?.warm)).toEqual([undefined, undefined]);
  }, 180_000);

  it("ends a warm child after its idle time; the next delegation starts cold", async () => {
    const env = suite.newEnv({ warmChildren: true });
    suite.fake.on({
      when: isFirstResult,
      reply: async () => {
        await waitUntil(() => taskFolders(env).warm.length === 1, 60_000, "a warm child");
        await waitUntil(() => taskFolders(env).warm.length === 0 && childPis(env).length === 0, 30_000, "its end");
        return delegate("second job");
      },
    });
    const run = await delegateTwice(env, "first job", { PI_SUBAGENT_WARM_IDLE_MS: "1000" });
    expect(run.code, run.stderr).toBe(0);
    expect(delegationRecords(env).map((record) => record.origin?.warm)).toEqual([undefined, undefined]);
    expect(taskFolders(env).all).toHaveLength(2);
  }, 180_000);
});

/**
 * The run that ended reached the model, so the next child of its shape is started ahead; `/reload` ends it and removes
 * its folder, and pi quits leaving no process.
 */
async function reloadEndsTheNextWarmChild(env: PiEnv, t: TmuxPi): Promise<void> {
  await waitUntil(() => taskFolders(env).warm.length === 1, 60_000, "the next warm child");
  await t.submit("/reload");
  await waitUntil(() => taskFolders(env).warm.length === 0, 30_000, "the warm child's folder gone");
  const keep = await t.harnessPids(true);
  expect(await waitForNoProcesses(env.marker, 20_000, keep)).toEqual([]);
  expect(await t.quit()).toBe(0);
}

describe.skipIf(skipTuiTests())("warm children in the TUI", () => {
  it("/subagent-usage shows the waiting child and its memory; a cancel ends the task it took; /reload ends the next", {
    tags: ["tui"],
  }, async () => {
    const env = suite.newEnv({ warmChildren: true });
    suite.fake.on({ when: (req) => isMain(req) && /\[subagent-result\]/.test(req.lastText), reply: { text: "noted" } });
    const t = await suite.startTui();
    await t.submit(`Delegate. ${fakeDirective([delegate("first job"), { text: "dispatched" }])}`);
    await waitUntil(() => taskFolders(env).warm.length === 1, 90_000, "a warm child");
    const [firstWarm] = taskFolders(env).warm;
    await t.submit("/subagent-usage");
    await t.waitForText("Warm children: 1 waiting (at most 2)", 30_000);
    await t.waitForScreen((screen) => /worker · .* · pid \d+ · idle \d+ s · \d+ MiB/.test(screen), 10_000, "its line");
    await t.press("Escape");
    await t.waitForNoText("Warm children:", 10_000);

    // The next task takes the waiting child; cancelling it ends its whole tree, as for a cold child.
    const started = join(env.root, "sleep-started");
    const long = `Long job. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 307` } }] })}`;
    await t.submit(`Again. ${fakeDirective([delegate(long), { text: "dispatched again" }])}`);
    await waitUntil(() => existsSync(started), 90_000, "the warm-served task's sleep");
    expect(processesWithMarker(env.marker).some((p) => p.cmdline.includes("sleep 307"))).toBe(true);
    await t.submit("/subagent-cancel-all");
    await waitUntil(() => existsSync(join(sessionsDir(env), firstWarm!, "record.json")), 60_000, "its record");
    expect(recordOf(env, firstWarm!)).toMatchObject({ status: "cancelled", origin: { warm: true } });
    await waitUntil(
      () => !processesWithMarker(env.marker).some((p) => p.cmdline.includes("sleep 307")),
      20_000,
      "its sleep ended",
    );
    await reloadEndsTheNextWarmChild(env, t);
  });

  it("a warm child's question from pi's own permission gate reaches the person, and Yes runs its command", {
    tags: ["tui"],
  }, async () => {
    const env = suite.newEnv({ workerFrontmatter: "tools: bash", warmChildren: true });
    // The gate in the child asks before `rm -rf`.
    const dir = withPermissionGate(env);
    suite.fake.on({ when: (req) => isMain(req) && /\[subagent-result\]/.test(req.lastText), reply: { text: "noted" } });
    const t = await suite.startTui();
    await t.submit(`Delegate. ${fakeDirective([delegate("first job"), { text: "dispatched" }])}`);
    await waitUntil(() => taskFolders(env).warm.length === 1, 90_000, "a warm child");
    const [warmId] = taskFolders(env).warm;

    const remove = `Clean up. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `rm -rf ${dir}` } }] })}`;
    await t.submit(`Again. ${fakeDirective([delegate(remove), { text: "dispatched again" }])}`);
    await t.waitForAll([`worker ${warmId!.slice(-8)} asks:`, `rm -rf ${dir}`], 90_000);
    // pi's selector starts on its first choice, "Yes".
    await t.press("Enter");
    await waitUntil(() => existsSync(join(sessionsDir(env), warmId!, "record.json")), 60_000, "its record");
    expect(recordOf(env, warmId!)).toMatchObject({ status: "succeeded", origin: { warm: true } });
    expect(existsSync(dir)).toBe(false);
    const toolResult = suite.fake.requests.find((req) => isWorkerRequest(req) && req.lastRole === "tool");
    expect(toolResult?.lastText).not.toContain("Blocked");
    await reloadEndsTheNextWarmChild(env, t);
  });
});
