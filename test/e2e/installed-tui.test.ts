/**
 * The package as a user has it: installed with `pi install <path>` (no `-e`), in the real TUI of the pi under
 * test (`PI_E2E_PI`: pi 0.73.1, or pi 1.x on Node 22). One session walks the everyday features end to end:
 * dispatch with its receipt, the progress widget, a result delivered as a `[subagent-result]` turn, cancel of
 * a running task, and /subagent-config's picker. This is also what proves the lazily loaded runtime is there
 * when the TUI needs it (widget, renderers, commands).
 *
 * @module-tag contract
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeRequest } from "../harness/fake-model.ts";
import { REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const suite = useE2eSuite();
const RESULT_TITLE =
  /^## \[subagent-result\] worker (succeeded|failed|timed out|cancelled) \(taskId: ([0-9a-f-]{36})\)/;
const isParent = (req: FakeRequest) => !isWorkerRequest(req);

describe.skipIf(skipTuiTests())("the package installed with pi install, in the TUI", () => {
  it("dispatches, shows the widget, delivers a result, cancels, and opens /subagent-config", {
    tags: ["tui"],
  }, async () => {
    const env = suite.newEnv();
    const install = await runPi(["install", REPO_ROOT], { env: env.env, cwd: env.workDir, timeoutMs: 120_000 });
    expect(install.code, install.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(env.agentDir, "settings.json"), "utf8")) as { packages?: string[] };
    expect(settings.packages?.map((entry) => resolve(env.agentDir, entry))).toEqual([REPO_ROOT]);

    // A result envelope quotes the child's task, directive included: the parent must not act on that again.
    suite.fake.on({
      when: (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
      reply: { text: "Result noted." },
    });
    const tui = await suite.startTui({ args: [] });

    const sleeping = join(env.root, "sleep-started");
    const longTask = `Long job. ${fakeDirective({ toolCalls: [{ name: "bash", arguments: { command: `touch ${sleeping} && sleep 300` } }] })}`;
    const quickTask = `Quick job. ${fakeDirective({ text: "QUICK-RESULT-MARKER" })}`;
    await tui.submit(
      `Delegate both. ${fakeDirective([
        {
          toolCalls: [
            { name: "subagent", arguments: { agent: "worker", task: longTask } },
            { name: "subagent", arguments: { agent: "worker", task: quickTask } },
          ],
        },
        { text: "Both dispatched." },
      ])}`,
    );
    // Receipts, then the widget with the running task.
    await tui.waitForScreen(
      (screen) => [...screen.matchAll(/Dispatched worker\. taskId: [0-9a-f-]{36}/g)].length === 2,
      60_000,
      "two receipts",
    );
    await waitForFile(sleeping, 60_000);
    await tui.waitForText(/── Subagents · 1 running ─+/, 60_000);

    // The quick task's result starts a turn of its own with the envelope, and its card shows.
    const delivered = await suite.fake.waitForRequest(
      (r) => isParent(r) && r.lastRole === "user" && RESULT_TITLE.test(r.lastText),
      90_000,
      "the result turn",
    );
    expect(delivered.lastText).toMatch(/^## \[subagent-result\] worker succeeded/);
    expect(delivered.lastText).toContain("QUICK-RESULT-MARKER");
    await tui.waitForText("View full result: /subagent-result", 30_000);

    // Cancel the sleeping one.
    await tui.submit("/subagent-cancel-all");
    await tui.waitForText("Cancelled 1 running subagent task(s).", 30_000);
    await tui.waitForNoText(/── Subagents · \d+ running/, 30_000);

    // /subagent-config opens its picker; Esc leaves it.
    await tui.submit("/subagent-config");
    await tui.waitForText("Manage available model list ($models)", 30_000);
    await tui.press("Escape");
    await tui.waitForNoText("Manage available model list ($models)", 20_000);

    expect(await tui.quit()).toBe(0);
    await tui.dispose();
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});
