/**
 * The clone's two scripts for trying the package by hand: `npm run pi -- <args>` (pi 0.73.1 on the Node npm runs
 * on) and `npm run pi:1 -- <args>` (pi 1.x on the bundled Node 22), each with this checkout's extension, in the
 * folder npm was started from. Each pass runs the script of its own pi (PI_E2E_PI), through npm as a newcomer
 * types it, from a work folder outside the clone, with Node 20 first on PATH (`npx pi` there runs pi 1.x on Node
 * 20 and crashes: the reason for the scripts). A delegation must work end to end, and the child's bash must
 * see the script's Node. pi's own subcommands (`install`, `list`, `remove`, ...) must reach pi as subcommands, not
 * the model as prompts.
 *
 * @module-tag contract
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

  it("passes pi's own subcommands to pi: install, list and remove change the agent dir's packages, and no model is asked", async () => {
    suite.newEnv();
    const settingsPath = join(suite.env.agentDir, "settings.json");
    const packages = () => (JSON.parse(readFileSync(settingsPath, "utf8")) as { packages?: string[] }).packages ?? [];

    const install = await npmRun(["install", REPO_ROOT]);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain(`Installed ${REPO_ROOT}`);
    expect(packages()).toHaveLength(1);

    const list = await npmRun(["list"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("User packages:");
    expect(list.stdout).toContain(REPO_ROOT);

    const remove = await npmRun(["remove", REPO_ROOT]);
    expect(remove.code, remove.stderr).toBe(0);
    expect(remove.stdout).toContain(`Removed ${REPO_ROOT}`);
    expect(packages()).toEqual([]);
    expect((await npmRun(["list"])).stdout).toContain("No packages installed.");

    expect(suite.fake.requests).toEqual([]);
  }, 300_000); // five npm runs, each a pi start: about 10 s apiece on a loaded 2-core machine

  it("prints pi's help for --help", async () => {
    suite.newEnv();
    const result = await npmRun(["--help"]);
    expect(result.code, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain("pi - AI coding assistant");
    expect(suite.fake.requests).toEqual([]);
  });
});
