/**
 * After `kill -9` of `pi -p` during a blocking delegation, the continued session (`pi -c` in the TUI) tells its
 * model once what became of the call: the next start reaps the run (a `failed` record, `its pi process ended`)
 * and its `[subagent-result]` goes to the session that dispatched it, as a background result would. Before,
 * that model saw only pi's `No result provided` for the dangling `subagent` call.
 *
 * @module-tag contract
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";
import { startHeldDelegation } from "../harness/blocking-run.ts";

const suite = useE2eSuite();
const RESULT_TITLE = /^## \[subagent-result\] worker failed \(taskId: ([0-9a-f-]{36})\)/;
const isParent = (request: FakeRequest) => !isWorkerRequest(request);
const resultsIn = (request: FakeRequest) =>
  request.messages
    .filter((message) => message.role === "user" && RESULT_TITLE.test(messageText(message)))
    .map(messageText);

function taskFolders(agentDir: string): string[] {
  const dir = join(agentDir, "subagent-sessions");
  return existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith(".")) : [];
}

describe.skipIf(skipTuiTests())("a blocking call whose pi was killed, in the continued session", () => {
  it("tells the model once: agent, taskId, failed: its pi process ended, and the session file", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv();
    const sleeping = join(suite.env.root, "sleep-started");
    const task = `Long job. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${sleeping} && sleep 300` } }] })}`;
    const prompt = `Please delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] })}`;
    const { piPid, run } = await startHeldDelegation(suite.env, prompt, sleeping);
    const [taskId] = taskFolders(suite.env.agentDir);
    expect(taskId).toBeDefined();
    process.kill(piPid, "SIGKILL");
    expect((await run).signal).toBe("SIGKILL");
    expect(await waitForNoProcesses(suite.env.marker, 10_000)).toEqual([]);

    // The continued session starts a turn of its own with the result; the model answers it.
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
      reply: { text: "Noted: the worker failed." },
    });
    const tui = await suite.startTui({ args: ["-e", EXTENSION_ENTRY, "-c"] });
    const told = await suite.fake.waitForRequest(
      (r) => isParent(r) && resultsIn(r).length > 0,
      90_000,
      "the result in the continued session",
    );
    const [envelope] = resultsIn(told);
    expect(RESULT_TITLE.exec(envelope!)?.[1]).toBe(taskId);
    expect(envelope).toContain("- Error: its pi process ended");
    expect(envelope).toContain(
      `Its session file: ${join(suite.env.agentDir, "subagent-sessions", taskId!, "session.jsonl")}`,
    );
    // It is the same conversation: the dangling call is there before the result.
    const callIndex = told.messages.findIndex(
      (message) => message.role === "assistant" && JSON.stringify(message).includes('"subagent"'),
    );
    expect(callIndex).toBeGreaterThanOrEqual(0);

    // Once: the next turn's request carries it a single time, and the record says it was delivered.
    await tui.waitForText("Noted: the worker failed.", 30_000);
    await tui.submit(`Anything else? ${fakeDirective({ text: "NOTHING-ELSE" })}`);
    const next = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastText.includes("Anything else?"),
      60_000,
      "the next turn",
    );
    expect(resultsIn(next)).toHaveLength(1);
    await tui.waitForText("NOTHING-ELSE", 30_000);
    const record = JSON.parse(
      readFileSync(join(suite.env.agentDir, "subagent-sessions", taskId!, "record.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(record).toMatchObject({
      taskId,
      mode: "sync",
      status: "failed",
      errorMessage: "its pi process ended",
      delivered: true,
    });
    expect(await tui.quit()).toBe(0);
  });
});
