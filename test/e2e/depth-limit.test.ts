/**
 * A subagent at the depth limit has no `subagent` tool surface, however it got the package (issue 40): installed
 * with `pi install` (pi loads it in every child) or given to the main pi with `-e` (passed on to each child). A
 * chain main → child → grandchild under `PI_SUBAGENT_MAX_DEPTH=2`, with the real pi and the scripted fake model:
 * the child, below the limit, sees the tool with its snippet and guidelines; the grandchild, at the limit, sees
 * none of them, and still ends (with its bash `sleep`) when its parent dies hard, by its own watch on that parent.
 * Both child modes: an RPC child also notices through its stdin closing (pi 1.x then ends its bash commands
 * itself, pi 0.73.1 does not); a JSON child has only the watchdog, so there the test shows it at work on both pis.
 *
 * @module-tag contract
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { processesWithMarker, waitForFile, waitForNoProcesses, waitForProcess } from "../harness/processes.ts";
import { TOOL_GUIDELINES, TOOL_SNIPPET } from "../../src/tool/texts.ts";

const suite = useE2eSuite();

function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
  } catch {
    return [];
  }
}

/** The pid in `PI_SUBAGENT_PARENT=<pid>:<start>` of the test's processes at `depth` (they all name one parent). */
function parentPidAtDepth(depth: number): number[] {
  const parents = processesWithMarker(suite.env.marker)
    .map((p) => environOf(p.pid))
    .filter((environ) => environ.includes(`PI_SUBAGENT_DEPTH=${depth}`))
    .flatMap((environ) => environ.filter((entry) => entry.startsWith("PI_SUBAGENT_PARENT=")))
    .map((entry) => Number(entry.slice("PI_SUBAGENT_PARENT=".length).split(":")[0]));
  return [...new Set(parents)];
}

/** What of the `subagent` tool a request carries: the tool, its snippet, its guidelines. */
function subagentSurface(req: FakeRequest) {
  return {
    tool: req.tools.includes("subagent"),
    snippet: req.system.includes(TOOL_SNIPPET),
    guidelines: TOOL_GUIDELINES.filter((line) => req.system.includes(line)).length,
  };
}

describe.each([
  { how: "installed with pi install", installed: true, childMode: "rpc" },
  { how: "installed with pi install", installed: true, childMode: "json" },
  { how: "given to the main pi with -e", installed: false, childMode: "rpc" },
  { how: "given to the main pi with -e", installed: false, childMode: "json" },
])("a subagent at the depth limit, the package $how, $childMode children", ({ installed, childMode }) => {
  it("has no subagent tool, snippet or guidelines, and ends with its sleep when its parent is killed hard", async () => {
    const env = suite.newEnv();
    if (installed) {
      const install = await runPi(["install", REPO_ROOT], { env: env.env, cwd: env.workDir, timeoutMs: 120_000 });
      expect(install.code, install.stderr).toBe(0);
    }
    const started = join(env.root, "leaf-started");
    const leafTask = `Leaf job. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${started} && sleep 306` } }] })}`;
    const middleTask = `Middle job. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: leafTask } }] }])}`;
    const prompt = `Please delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: middleTask } }] }])}`;
    let mainPid = 0;
    const run = runPi([...(installed ? [] : ["-e", EXTENSION_ENTRY]), "-p", prompt], {
      env: env.env,
      cwd: env.workDir,
      extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2", PI_SUBAGENT_CHILD_MODE: childMode },
      timeoutMs: 120_000,
      onSpawn: (pid) => (mainPid = pid),
    });
    await waitForFile(started, 90_000);
    await waitForProcess(env.marker, "sleep 306", 10_000);

    const main = suite.fake.requests.find((req) => !isWorkerRequest(req))!;
    const middle = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastText.startsWith("Task: Middle job."),
    )!;
    const leaf = suite.fake.requests.find((req) => isWorkerRequest(req) && req.lastText.startsWith("Task: Leaf job."))!;
    const whole = { tool: true, snippet: true, guidelines: TOOL_GUIDELINES.length };
    expect(subagentSurface(main), "the main agent").toEqual(whole);
    expect(subagentSurface(middle), "the child, below the limit").toEqual(whole);
    expect(subagentSurface(leaf), "the grandchild, at the limit").toEqual({
      tool: false,
      snippet: false,
      guidelines: 0,
    });
    expect(leaf.tools).toContain("bash");
    expect(leaf.system).not.toContain("## Available Subagents");

    // The grandchild's parent is the child: stopped first, so it cannot end the grandchild itself, then the main pi
    // and the child are killed hard. Only the grandchild's own watch on its parent is left to end it and its sleep.
    const [middlePid] = parentPidAtDepth(2);
    expect(parentPidAtDepth(2)).toHaveLength(1);
    expect(parentPidAtDepth(1)).toEqual([mainPid]);
    process.kill(middlePid!, "SIGSTOP");
    process.kill(mainPid, "SIGKILL");
    process.kill(middlePid!, "SIGKILL");
    expect((await run).signal).toBe("SIGKILL");
    expect(await waitForNoProcesses(env.marker, 10_000)).toEqual([]);
  });
});
