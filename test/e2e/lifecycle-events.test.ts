/**
 * Lifecycle events for other extensions: a listening extension of the test tree (fixtures/lifecycle-listener.ts),
 * loaded beside the package, hears `subagent:queued`, `subagent:started`, `subagent:ended` and
 * `subagent:delivered` on pi's event bus, in that order, with the payloads docs/events.md documents: for a blocking
 * call in print mode and for a background task in the TUI (delivered once its result entered the conversation).
 *
 * @module-tag contract
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const LISTENER = join(REPO_ROOT, "test", "e2e", "fixtures", "lifecycle-listener.ts");
const RESULT_TITLE = /^## \[subagent-result\] worker succeeded \(taskId: ([0-9a-f-]{36})\)/;
const suite = useE2eSuite();

interface Logged {
  channel: string;
  pid: number;
  data: Record<string, unknown>;
}

function logged(path: string): Logged[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Logged);
}

/** The log re-read every 100 ms (a file emits no event) until `channel` is in it. */
async function waitForLogged(path: string, channel: string, timeoutMs: number): Promise<void> {
  await vi.waitFor(
    () =>
      expect(
        logged(path).map((event) => event.channel),
        `the channels logged in ${path}`,
      ).toContain(channel),
    { timeout: timeoutMs, interval: 100 },
  );
}

function delegatingPrompt(childText: string): string {
  const task = `Say it. ${fakeDirective({ text: childText, usage: { input: 120, output: 30 } })}`;
  // The next model call (after the tool result) quotes it: print mode's answer then shows the child's.
  return `Delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] }])}`;
}

/** The four events of one task, in order, each from the main pi, with the common fields. */
function expectLifecycle(
  events: Logged[],
  mode: "sync" | "async",
  mainPid?: number,
): Record<string, Record<string, unknown>> {
  expect(events.map((event) => event.channel)).toEqual([
    "subagent:queued",
    "subagent:started",
    "subagent:ended",
    "subagent:delivered",
  ]);
  const taskId = events[0]!.data.taskId;
  expect(taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  for (const event of events) {
    expect(event.data).toMatchObject({ source: "pi-subagent-dispatch", taskId, agent: "worker", mode });
    expect(String(event.data.task)).toMatch(/^Say it\./);
    expect(typeof event.data.at).toBe("number");
    if (mainPid !== undefined) expect(event.pid).toBe(mainPid);
  }
  // Only the main pi emits: every event came from one process.
  expect(new Set(events.map((event) => event.pid)).size).toBe(1);
  return Object.fromEntries(events.map((event) => [event.channel, event.data]));
}

describe("lifecycle events on pi.events", () => {
  it("a blocking call in print mode: queued, started (with the child's pid), ended with the record's facts, delivered", async () => {
    suite.newEnv();
    const log = join(suite.env.root, "lifecycle.jsonl");
    const result = await runPi(["-e", EXTENSION_ENTRY, "-e", LISTENER, "-p", delegatingPrompt("CHILD-SAID-IT")], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      extraEnv: { LIFECYCLE_LOG: log },
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("CHILD-SAID-IT");

    const byChannel = expectLifecycle(logged(log), "sync");
    expect(byChannel["subagent:queued"]!.waiting).toBe(false);
    expect(byChannel["subagent:started"]!.pid).toEqual(expect.any(Number));
    const ended = byChannel["subagent:ended"]!;
    expect(ended).toMatchObject({ status: "succeeded", stopReason: "stop", model: "fake/fake-model" });
    expect(ended.usage).toMatchObject({ turns: 1, input: 120, output: 30 });
    expect(ended.durationMs).toEqual(expect.any(Number));
    const record = JSON.parse(
      readFileSync(join(suite.env.agentDir, "subagent-sessions", String(ended.taskId), "record.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(ended.sessionFile).toBe(record.sessionFile);
    expect(ended.durationMs).toBe(record.durationMs);
    expect(byChannel["subagent:delivered"]!.status).toBe("succeeded");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  describe.skipIf(skipTuiTests())("in the TUI", () => {
    it("a background task: delivered comes once its result entered the conversation", { tags: ["tui"] }, async () => {
      suite.newEnv();
      const log = join(suite.env.root, "lifecycle.jsonl");
      suite.fake.on({
        when: (r) => !isWorkerRequest(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
        reply: { text: "Noted the result." },
      });
      const tui = await suite.startTui({
        args: ["-e", EXTENSION_ENTRY, "-e", LISTENER],
        extraEnv: { LIFECYCLE_LOG: log },
      });
      await tui.submit(delegatingPrompt("BACKGROUND-SAID-IT"));
      await suite.fake.waitForRequest(
        (r) => !isWorkerRequest(r) && RESULT_TITLE.test(r.lastText),
        90_000,
        "the result reaching the main agent",
      );
      await waitForLogged(log, "subagent:delivered", 30_000);
      const byChannel = expectLifecycle(logged(log), "async", await tui.piPid());
      expect(byChannel["subagent:ended"]).toMatchObject({
        status: "succeeded",
        usage: expect.objectContaining({ turns: 1, input: 120, output: 30 }),
      });
      expect(byChannel["subagent:delivered"]!.status).toBe("succeeded");
      expect(await tui.quit()).toBe(0);
    });
  });
});
