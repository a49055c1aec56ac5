/**
 * A child whose stdout is flooded with lines that are not pi events (issue 28, item 8), in the real TUI (tmux,
 * fake model): a test extension, passed on to the child with `-e`, starts `yes` with the child pi's own stdout
 * (the socket the parent reads events from) for 12 s when the child's bash tool runs; the parent's editor still
 * echoes keystrokes promptly while that goes on, and the task's record counts the dropped lines and keeps a
 * short sample. (A bash command cannot reach that stdout itself: it is a socket, which /proc/<pid>/fd cannot open.)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { EXTENSION_ENTRY } from "../harness/pi-env.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const FLOOD_EXTENSION = join(import.meta.dirname, "fixtures", "stdout-flood-extension.ts");

const suite = useE2eSuite();
const FLOOD_SECONDS = 12;

describe.skipIf(skipTuiTests())("a child flooding its stdout with non-JSON", () => {
  it("leaves the TUI responsive (8 keystrokes echoed within 4 s in all) and the record counts the dropped lines", { tags: ["tui", "slow"] }, async () => {
    const t = await suite.startTui({ args: ["-e", EXTENSION_ENTRY, "-e", FLOOD_EXTENSION], extraEnv: { FLOOD_SECONDS: String(FLOOD_SECONDS) } });
    const started = join(suite.env.root, "flood-started");
    // The extension starts the flood as this command starts; the command outlasts it.
    const command = `touch ${started}; sleep ${FLOOD_SECONDS + 1}; echo FLOOD-OVER`;
    const task = `Flood. ${fakeDirective([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "FLOOD-DONE" }])}`;
    suite.fake.on({ when: (r) => r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."), reply: { text: "Dispatched." }, times: 1 });
    await t.submit(`Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] })}`);
    const receipt = await suite.fake.waitForRequest((r) => r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."), 90_000, "the receipt");
    const taskId = receipt.lastText.slice(-36);
    await waitForFile(started, 60_000);
    await t.waitForText("Dispatched.", 30_000);

    await t.type("probe-");
    await t.waitForText("probe-", 10_000);
    const typingStarted = Date.now();
    let typed = "probe-";
    for (const key of "12345678") {
      await t.type(key);
      typed += key;
      await t.waitForText(typed, 10_000);
    }
    const typingTook = Date.now() - typingStarted;
    const floodStillOn = Date.now() - typingStarted < FLOOD_SECONDS * 1000 && !existsSync(join(suite.env.agentDir, "subagent-sessions", taskId, "record.json"));
    expect(typingTook, `8 keystrokes took ${typingTook} ms to show`).toBeLessThan(4000);
    expect(floodStillOn, "the keystrokes were typed while the child flooded its stdout").toBe(true);
    for (let i = 0; i < typed.length; i++) await t.press("BSpace");
    await t.waitForNoText("probe-", 10_000);

    const delivered = await suite.fake.waitForRequest((r) => r.lastRole === "user" && r.lastText.includes(`(taskId: ${taskId})`), 90_000, "the result");
    expect(delivered.lastText).toContain("FLOOD-DONE");
    const record = JSON.parse(readFileSync(join(suite.env.agentDir, "subagent-sessions", taskId, "record.json"), "utf8")) as {
      status: string;
      skippedOutput?: { lines: number; sample: string[] };
    };
    expect(record.status).toBe("succeeded");
    expect(record.skippedOutput?.lines).toBeGreaterThan(10_000);
    expect(record.skippedOutput?.sample).toEqual(["y", "y", "y", "y", "y"]);
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
