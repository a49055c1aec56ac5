/**
 * The session ledger with the real pi and the fake model: three delegations with known usage, then
 * `/subagent-usage` in the same session (`pi -c -p`) prints exactly their sums, which are the sums of the
 * usage each result reported.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatUsage } from "../../src/shared/text.ts";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { delegateKnownTasks, KNOWN_TOTAL_LINE } from "../harness/budget-fixtures.ts";

const suite = useE2eSuite();

function printPi(args: string[]) {
  return runPi(["-e", EXTENSION_ENTRY, ...args], { env: suite.env.env, cwd: suite.env.workDir, timeoutMs: 120_000 });
}

describe("the session ledger in print mode", () => {
  it("`pi -c -p /subagent-usage` prints the exact sums of three delegations' usage and exits 0", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv();
    const run = await printPi(["-p", delegateKnownTasks()]);
    expect(run.code, run.stderr).toBe(0);
    // Each task's own record reports the usage its fake answer carried.
    const ids = [...run.stdout.matchAll(/\[subagent session: ([0-9a-f-]{36})\]/g)].map((match) => match[1]!);
    expect(ids).toHaveLength(3);
    const usages = ids.map(
      (id) => JSON.parse(readFileSync(join(suite.env.agentDir, "subagent-sessions", id, "record.json"), "utf8")).usage,
    );
    expect(usages.map((usage) => formatUsage(usage)).sort()).toEqual([
      "1 turn/↑10k/↓1k/$0.0120",
      "1 turn/↑20k/↓2k/$0.0240",
      "1 turn/↑30k/↓3k/$0.0360",
    ]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);

    const usage = await printPi(["-c", "-p", "/subagent-usage"]);
    expect(usage.code, usage.stderr).toBe(0);
    const lines = usage.stdout.trim().split("\n");
    expect(lines[0]).toBe("Subagent usage in this session");
    expect(lines).toContain(KNOWN_TOTAL_LINE);
    expect(lines).toContain("Tasks by status: succeeded 3");
    expect(lines).toContain(
      "- worker: 3 tasks · 3 turns · input 60000 · output 6000 · cache read 0 · cache write 0 · cost $0.0720",
    );
    expect(lines).toContain(
      "- fake/fake-model: 3 tasks · 3 turns · input 60000 · output 6000 · cache read 0 · cache write 0 · cost $0.0720",
    );

    const json = await printPi(["-c", "--mode", "json", "-p", "/subagent-usage"]);
    expect(json.code, json.stderr).toBe(0);
    const line = json.stdout.split("\n").find((text) => text.startsWith('{"type":"subagent_usage"'));
    expect(JSON.parse(line ?? "{}")).toMatchObject({
      total: { tasks: 3, turns: 3, input: 60000, output: 6000, cacheRead: 0, cacheWrite: 0, costMicros: 72000 },
      byStatus: { succeeded: 3 },
    });
  });
});
