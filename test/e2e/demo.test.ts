/**
 * `npm run demo` must keep working on a fresh machine: it runs the real pi offline and exits 0, and names the pi it
 * runs (each pass's own: the demo follows PI_E2E_PI like the tests).
 *
 * @module-tag contract
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PI, REPO_ROOT, runProcess } from "../harness/pi-env.ts";

describe("npm run demo", () => {
  it("shows a delegation end to end and leaves nothing running", async () => {
    const result = await runProcess(process.execPath, ["--import", "tsx", "demo/run.ts"], {
      env: process.env,
      cwd: REPO_ROOT,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const nodeVersion = spawnSync(PI.node, ["--version"], { encoding: "utf8" }).stdout.trim();
    expect(result.stdout.split("\n")[0]).toBe(
      `pi-subagent-dispatch demo  (real ${PI.label} on Node ${nodeVersion}, offline, scripted fake model)`,
    );
    expect(result.stdout).toContain('It calls the subagent tool:  subagent {agent: "explore"');
    expect(result.stdout).toContain("only the tools read, grep, find, ls");
    expect(result.stdout).toMatch(/6\. pi's final answer \(stdout of pi -p\):\n {3}The explore subagent found it:/);
    expect(result.stdout).toContain("processes left behind: 0.");
  });
});
