/**
 * When the child pi itself dies (issue 28, items 2 and 10), with the real pi against the scripted fake model:
 * `kill -9` of the child pi (not of the parent) ends what its bash tool left running in the background
 * (`… &`, `nohup … &`), and the main agent is told the child was killed, not its last stop reason; a child that
 * ends normally leaves no `nohup … &` behind either.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { startHeldDelegation } from "../harness/blocking-run.ts";

const suite = useE2eSuite();

function delegatingPrompt(task: string, then: string): string {
  const action: FakeAction = { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] };
  return `Please delegate. ${fakeDirective([action, { text: then }])}`;
}

/** True while `pid` runs (a zombie, dead but not yet reaped, does not count). */
function isRunning(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return false;
  }
}

/** The child pi: the process whose parent is `parentPid` and whose environment carries a subagent task id. */
function childPiOf(parentPid: number): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== parentPid) continue;
      if (
        readFileSync(`/proc/${entry}/environ`, "latin1")
          .split("\0")
          .some((kv) => kv.startsWith("PI_SUBAGENT_TASK_ID="))
      )
        return Number(entry);
    } catch {
      // exited while we looked
    }
  }
  return undefined;
}

/** A bash command that starts `sleep <seconds>` in the background (plain, or under nohup) and writes its pid. */
function background(seconds: number, pidFile: string, nohup = false): string {
  return `${nohup ? "nohup " : ""}sleep ${seconds} > /dev/null 2>&1 < /dev/null & echo $! > ${pidFile}`;
}

const readPid = (file: string) => Number(readFileSync(file, "utf8").trim());

describe("kill -9 of the child pi", () => {
  it("ends its background and nohup commands within 10 s, and the main agent is told it was killed", async () => {
    suite.newEnv();
    const bgPidFile = join(suite.env.root, "bg.pid");
    const nohupPidFile = join(suite.env.root, "nohup.pid");
    const busy = join(suite.env.root, "busy");
    const task = `Start things. ${fakeDirective([
      {
        toolCalls: [
          {
            name: "bash",
            arguments: { command: `${background(305, bgPidFile)}; ${background(306, nohupPidFile, true)}` },
          },
        ],
      },
      { toolCalls: [{ name: "bash", arguments: { command: `touch ${busy} && sleep 300` } }] },
    ])}`;
    const { piPid, run } = await startHeldDelegation(suite.env, delegatingPrompt(task, "The worker died."), busy);
    const leftovers = [readPid(bgPidFile), readPid(nohupPidFile)];
    expect(leftovers.every(isRunning), "the background commands run").toBe(true);
    const childPid = childPiOf(piPid);
    expect(childPid, "the child pi was found in the parent's process tree").toBeDefined();

    process.kill(childPid!, "SIGKILL");
    const killedAt = Date.now();
    // /proc emits no event when a process ends: re-checked every 100 ms, within the 10 s this test promises.
    await vi.waitFor(
      () => expect(leftovers.filter(isRunning), "still running after the child pi was killed").toEqual([]),
      { timeout: 10_000, interval: 100 },
    );
    expect(Date.now() - killedAt).toBeLessThan(10_000);

    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    const told = suite.fake.requests.find((r) => r.lastRole === "tool" && r.lastText.includes("Subagent worker"));
    expect(told?.lastText).toContain("Subagent worker failed.");
    expect(told?.lastText).toContain(
      "- Stop reason: killed (a signal from outside pi-subagent-dispatch ended its pi process",
    );
    expect(told?.lastText).toContain("- Error: the subagent process was killed by SIGKILL");
    expect(told?.lastText).not.toContain("toolUse");
    expect(await waitForNoProcesses(suite.env.marker, 10_000)).toEqual([]);
  });
});

describe("a child that ends normally", () => {
  it("leaves no `nohup … &` running behind its answer", async () => {
    suite.newEnv();
    const nohupPidFile = join(suite.env.root, "nohup.pid");
    const task = `Start a server. ${fakeDirective([
      { toolCalls: [{ name: "bash", arguments: { command: background(307, nohupPidFile, true) } }] },
      { text: "Started it." },
    ])}`;
    let nohupPid = 0;
    let runningWhenDelivered: boolean | undefined;
    // The parent's call after the result: by then nothing of the child's task may run.
    suite.fake.on({
      when: (r) => r.lastRole === "tool" && r.lastText.includes("Started it."),
      reply: () => {
        nohupPid = readPid(nohupPidFile);
        runningWhenDelivered = isRunning(nohupPid);
        return { text: "The worker started it." };
      },
    });
    const result = await runPi(["-e", EXTENSION_ENTRY, "-p", delegatingPrompt(task, "unused")], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("The worker started it.");
    expect(nohupPid).toBeGreaterThan(0);
    expect(runningWhenDelivered, "the nohup command outlived its child").toBe(false);
    expect(await waitForNoProcesses(suite.env.marker, 10_000)).toEqual([]);
  });
});
