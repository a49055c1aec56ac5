/**
 * The clone's two scripts for trying the package by hand: `npm run pi -- <args>` (pi 0.73.1 on the Node npm runs
 * on) and `npm run pi:1 -- <args>` (pi 1.x on the bundled Node 22), each with this checkout's extension, in the
 * folder npm was started from. Each pass runs the script of its own pi (PI_E2E_PI), through npm as a newcomer
 * types it, from a work folder outside the clone, with Node 20 first on PATH (`npx pi` there runs pi 1.x on Node
 * 20 and crashes: the reason for the scripts). A delegation must work end to end, and the child's bash must
 * see the script's Node.
 */
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite, WORKER_BODY } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { PI, REPO_ROOT, runProcess } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();
const script = PI.line === "1" ? "pi:1" : "pi";
const expectedVersion = PI.label.replace(/^pi /, "");
/** The Node major the script must run pi (and its children's tools) on. */
const expectedNodeMajor = PI.line === "1" ? 22 : Number(process.versions.node.split(".")[0]);

/** The test's env as a newcomer's shell has it: the tests' own Node (20) first on PATH, no npm variables. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...suite.env.env, PATH: process.env.PATH };
  for (const key of Object.keys(env)) if (key.startsWith("npm_") || key === "INIT_CWD") delete env[key];
  return env;
}

function npmRun(args: string[]) {
  return runProcess("npm", ["--prefix", REPO_ROOT, "run", "--silent", script, "--", ...args], {
    env: newcomerEnv(),
    cwd: suite.env.workDir,
    timeoutMs: 90_000,
  });
}

describe(`npm run ${script}`, () => {
  it(`runs ${PI.label}`, async () => {
    suite.newEnv();
    const result = await npmRun(["--version"]);
    expect(result.code, result.stderr).toBe(0);
    // pi 0.73.1 prints its version on stderr, pi 1.x on stdout.
    expect(`${result.stdout}${result.stderr}`.trim()).toBe(expectedVersion);
  });

  it("loads this checkout's extension in the folder npm was started from: a delegation runs end to end", async () => {
    suite.newEnv();
    const task = `Report the node version. ${fakeDirective([
      { toolCalls: [{ name: "bash", arguments: { command: "node --version" } }] },
      { text: "CHILD-VIA-NPM-SCRIPT" },
    ])}`;
    const prompt = `Delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] }])}`;
    const result = await npmRun(["-p", prompt]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("CHILD-VIA-NPM-SCRIPT");

    const main = suite.fake.requests.find((request) => !isWorkerRequest(request));
    expect(main?.tools).toContain("subagent");
    // The worker is the work folder's project agent: pi ran there, not in the clone.
    const child = suite.fake.requests.filter(isWorkerRequest);
    expect(child[0]?.system).toContain(WORKER_BODY);
    const nodeVersion = /v(\d+)\.\d+\.\d+/.exec(child.at(-1)?.lastText ?? "");
    expect(nodeVersion?.[1], child.at(-1)?.lastText).toBe(String(expectedNodeMajor));
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
