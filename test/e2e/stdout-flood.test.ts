/**
 * A child whose stdout is flooded with lines that are not pi events (issue 28, item 8), in the real TUI (tmux,
 * fake model): a test extension, passed on to the child with `-e`, starts `yes` with the child pi's own stdout
 * (the socket the parent reads events from) when the child's bash tool runs, until the test says stop; the parent's
 * editor still echoes keystrokes promptly while that goes on (measured against the same keystrokes typed before the
 * flood, in the same run, so that a loaded machine slows both alike), and the task's record counts the dropped lines
 * and keeps a short sample. (A bash command cannot reach that stdout itself: it is a socket, which /proc/<pid>/fd cannot open.)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { EXTENSION_ENTRY } from "../harness/pi-env.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const FLOOD_EXTENSION = join(import.meta.dirname, "fixtures", "stdout-flood-extension.ts");

const suite = useE2eSuite();

/** Types `label` and then 8 keys, each once the screen shows the one before; the time the 8 keys took to show. */
async function timeEightKeys(t: Awaited<ReturnType<typeof suite.startTui>>, label: string): Promise<number> {
  await t.type(label);
  await t.waitForText(label, 30_000);
  const started = Date.now();
  let typed = label;
  for (const key of "12345678") {
    await t.type(key);
    typed += key;
    await t.waitForText(typed, 30_000);
  }
  const took = Date.now() - started;
  for (let i = 0; i < typed.length; i++) await t.press("BSpace");
  await t.waitForNoText(label, 30_000);
  return took;
}

describe.skipIf(skipTuiTests())("a child flooding its stdout with non-JSON", () => {
  it("leaves the TUI as responsive as before the flood (8 keystrokes) and the record counts the dropped lines", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv();
    const stop = join(suite.env.root, "flood-stop");
    const t = await suite.startTui({
      args: ["-e", EXTENSION_ENTRY, "-e", FLOOD_EXTENSION],
      extraEnv: { FLOOD_STOP_FILE: stop },
    });
    const started = join(suite.env.root, "flood-started");
    // The extension starts the flood as this command starts; both end once the test writes the stop file.
    const command = `touch ${started}; while [ ! -e ${stop} ]; do sleep 0.1; done; echo FLOOD-OVER`;
    const task = `Flood. ${fakeDirective([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "FLOOD-DONE" }])}`;
    suite.fake.on({
      when: (r) => r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      reply: { text: "Dispatched." },
      times: 1,
    });
    // The baseline: the same keystrokes on the same machine, now, with no flood.
    const quiet = await timeEightKeys(t, "quiet-");
    await t.submit(
      `Delegate. ${fakeDirective({ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] })}`,
    );
    const receipt = await suite.fake.waitForRequest(
      (r) => r.lastRole === "tool" && r.lastText.startsWith("Dispatched worker."),
      90_000,
      "the receipt",
    );
    const taskId = receipt.lastText.slice(-36);
    await waitForFile(started, 60_000);
    await t.waitForText("Dispatched.", 30_000);

    const flooded = await timeEightKeys(t, "probe-");
    writeFileSync(stop, "");
    // A parent that parsed or kept every flooded line would freeze for seconds; a busy machine slows both alike.
    expect(flooded, `8 keystrokes took ${flooded} ms to show during the flood, ${quiet} ms before it`).toBeLessThan(
      3 * quiet + 2000,
    );

    const delivered = await suite.fake.waitForRequest(
      (r) => r.lastRole === "user" && r.lastText.includes(`(taskId: ${taskId})`),
      90_000,
      "the result",
    );
    expect(delivered.lastText).toContain("FLOOD-DONE");
    const record = JSON.parse(
      readFileSync(join(suite.env.agentDir, "subagent-sessions", taskId, "record.json"), "utf8"),
    ) as {
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
