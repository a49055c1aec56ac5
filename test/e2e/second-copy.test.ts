/**
 * Two clones of the package in one pi (one installed, one given with `-e`; here both with `-e`): the first serves
 * the pi, the second says in one line which folder is used and which is not, instead of pi's bare
 * "Tool "subagent" conflicts with …" refusal, and a delegation still works.
 *
 * @module-tag contract
 */
import { cpSync, mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();

/** What pi loads of the package (the entry, `src/`, the built-in agents) and package.json. */
const PACKAGE_PARTS = ["package.json", "extension.ts", "src", "agents"];

function copyPackage(to: string): void {
  mkdirSync(to, { recursive: true });
  for (const part of PACKAGE_PARTS) cpSync(join(REPO_ROOT, part), join(to, part), { recursive: true });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(to, "node_modules"), "dir");
}

describe("a second copy of the package in the same pi", () => {
  it("explains itself in one line, and the first copy delegates as usual", async () => {
    suite.newEnv();
    const clone = join(suite.env.root, "second-clone");
    copyPackage(clone);
    const task = `Count the files. ${fakeDirective({ text: "CHILD-ANSWER-7" })}`;
    const prompt = `Please delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] }])}`;
    const run = await runPi(["-e", EXTENSION_ENTRY, "-e", join(clone, "extension.ts"), "-p", prompt], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("conflicts with");
    const notices = run.stderr.split("\n").filter((line) => line.includes("two copies of this package are loaded"));
    expect(notices).toEqual([
      `pi-subagent-dispatch: two copies of this package are loaded; the one in ${realpathSync(REPO_ROOT)} is used and the one in ${clone} is not (remove one: pi remove <its path>, or leave out -e <its path>).`,
    ]);
    expect(suite.fake.requests.some((req) => isWorkerRequest(req) && req.lastText.includes("Count the files."))).toBe(
      true,
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
