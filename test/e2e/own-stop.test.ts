/**
 * A stop we caused is not the child's error: when a blocking call times out while its child waits on the model,
 * the child answers our abort with pi's `Request was aborted`; the result the main agent reads (and the record)
 * give the stop reason and no `- Error:` line with that answer.
 *
 * @module-tag contract
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();

describe("our own stop in a blocking result", () => {
  it("an activity timeout while the child's model call hangs: the stop reason, not `Request was aborted`", async () => {
    suite.newEnv();
    const task = `Think long. ${fakeDirective({ delayMs: 120_000, text: "too late" })}`;
    const prompt = `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] })}`;
    const result = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      extraEnv: { PI_SUBAGENT_ACTIVITY_TIMEOUT_MS: "4000" },
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(suite.fake.requests.some(isWorkerRequest), "the child's model call was made").toBe(true);

    const toolResult = suite.fake.requests
      .filter((request) => !isWorkerRequest(request))
      .flatMap((request) => request.messages.filter((message) => message.role === "tool").map(messageText))
      .at(-1);
    expect(toolResult).toMatch(/^Subagent worker timed out\.\n- Stop reason: activity_timeout \(no output for 4 s\)\n/);
    expect(toolResult).not.toContain("aborted");
    expect(toolResult).not.toContain("- Error:");

    const [taskId] = readdirSync(join(suite.env.agentDir, "subagent-sessions")).filter((name) => !name.startsWith("."));
    const record = JSON.parse(
      readFileSync(join(suite.env.agentDir, "subagent-sessions", taskId!, "record.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(record).toMatchObject({ status: "timed out", stopReason: "activity_timeout" });
    expect(record.errorMessage).toBeUndefined();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
